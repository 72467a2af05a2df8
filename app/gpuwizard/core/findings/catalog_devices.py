"""Finding texts of what :mod:`gpuwizard.core.findings.diagnosis_devices` recognises.

One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts. The real
logs behind each text are listed in tests/fixtures/recorded/diagnose/SOURCES.md.

Facts the hints rely on:

- The driver's user-space libraries (libcuda, NVML) work only with the kernel module of the same
  version. A driver update replaces the libraries at once but the running kernel keeps the old
  module until it is reloaded or the computer restarts (canonical/ubuntu-server-documentation#369;
  NVIDIA's answer in NVIDIA/nvidia-docker#182: unload the modules and load the new ones). A new
  kernel needs the module built for it, which DKMS (``dkms autoinstall``) or Fedora's akmods do
  when the kernel headers are installed (GoogleCloudPlatform/compute-gpu-installation#25;
  CachyOS/linux-cachyos#118, maintainers' answers; NVIDIA Driver Installation Guide,
  docs.nvidia.com/datacenter/tesla/driver-installation-guide/).
- CUDA error 803, cudaErrorSystemDriverMismatch: "a mismatch between the versions of the display
  driver and the CUDA driver" (CUDA Runtime API, "Data types", cudaError). Containers show it when
  the image's CUDA forward-compatibility libcuda (/usr/local/cuda/compat) is loaded on a host
  driver it does not fit (gpustack/gpustack#4678; NVIDIA/nvidia-container-toolkit#1679).
- CUDA error 804, cudaErrorCompatNotSupportedOnDevice: "the system was upgraded to run with
  forward compatibility but the visible hardware detected by CUDA does not support this
  configuration" (CUDA Runtime API, cudaError). Forward compatibility (the cuda-compat package)
  is for NVIDIA data-center GPUs and a few NGC Server Ready RTX cards only (CUDA Compatibility
  guide, "Forward Compatibility", docs.nvidia.com/deploy/cuda-compatibility/); NVIDIA's answer in
  NVIDIA/nvidia-docker#1515: remove the host's cuda-compat package.
- CUDA_VISIBLE_DEVICES lists the devices a process may see, by index or UUID; only they are
  visible, renumbered from 0 in the order listed, and an invalid entry hides it and every entry
  after it (CUDA C++ Programming Guide, "CUDA Environment Variables"). ``nvidia-smi -L`` lists the
  GPUs with their UUIDs. CUDA numbers GPUs fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID,
  which gives nvidia-smi's order (same section). torchrun starts --nproc-per-node processes, and
  each usually takes the GPU of its local rank (pytorch.org/docs/stable/elastic/run.html). Slurm
  sets CUDA_VISIBLE_DEVICES to the GPUs it gave a job (slurm.schedmd.com/gres.html, "GPU
  Management"), so a job that asked for none sees none.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The driver stack and device visibility.
_DRIVER_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    "KERNEL_MODULE_MISMATCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA driver's kernel module is not running, so no program can reach the GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Usually the driver or the kernel was updated and the module for the running kernel "
            "was not loaded or not built. Restart the computer first. If it persists, build the "
            "module for the running kernel: install its headers ('sudo apt install "
            "linux-headers-$(uname -r)' on Ubuntu and Debian) and run 'sudo dkms autoinstall' "
            "(on Fedora with RPM Fusion: 'sudo akmods --force'), or reinstall the driver package, "
            "then restart. With Secure Boot on, the module must be signed (enrol the key the "
            "driver installer offers) or the kernel refuses it: 'sudo dmesg | grep -i nvidia' "
            "says why it did not load. In a container, the host's driver must work and the "
            "container must be started with GPU access ('docker run --gpus all ...'). Check with "
            "'nvidia-smi'. In WSL 2 there is no Linux kernel module: the driver is the Windows "
            "one, so update it on Windows and do not install a Linux NVIDIA driver inside WSL.",
        ),
    ),
    "KERNEL_MODULE_MISMATCH:api_mismatch": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA driver libraries are version {client} but the loaded kernel module is "
            "version {module}: the driver was updated without reloading its kernel module.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Restart the computer: the new module {client} is then loaded. Without a restart, "
            "reload the module: 'sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo "
            "modprobe nvidia' (possible only when no program, such as the desktop, uses the GPU). "
            "If the mismatch comes back after a restart, the module for the running kernel was "
            "not rebuilt: run 'sudo dkms "
            "autoinstall' (or reinstall the driver package) so that 'modinfo -F version nvidia' "
            "prints {client}, then restart.",
        ),
    ),
    "KERNEL_MODULE_MISMATCH:error_803": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA error 803 (system has unsupported display driver / cuda driver combination): "
            "the CUDA driver library loaded does not match the NVIDIA kernel module.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "After a driver update, restart the computer (or reload the module: 'sudo rmmod "
            "nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia', possible only "
            "when no program, such as the desktop, uses the GPU), so that the kernel module and "
            "libcuda have the same version; 'cat "
            "/sys/module/nvidia/version' shows the module's. In a container whose host works, the "
            "image's CUDA forward-compatibility libcuda (/usr/local/cuda/compat) does not fit the "
            "host driver: take that folder out of LD_LIBRARY_PATH (or /etc/ld.so.conf.d) so the "
            "host's libcuda is used, or update the host driver to one that supports the image's "
            "CUDA.",
        ),
    ),
    # NVIDIA Fabric Manager User Guide (docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide):
    # on NVSwitch-based systems CUDA initialisation fails with "system not yet initialized" until
    # the fabric manager runs; its package must match the driver's version exactly, or it does
    # not start ("Installing Fabric Manager", "Fabric Manager Startup").
    "CUDA_SYSTEM_NOT_READY": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA could not start: the system is not ready yet (error 802, 'system not yet "
            "initialized'), which on servers whose GPUs are joined by NVSwitch means NVIDIA Fabric "
            "Manager is not running.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "On HGX and DGX servers (4 or 8 A100, H100, H200 or B200 GPUs joined by NVSwitch), "
            "install NVIDIA Fabric Manager of exactly the driver's version (for driver 570.x, the "
            "package nvidia-fabricmanager-570 at the same version) and start it: 'sudo systemctl "
            "enable --now nvidia-fabricmanager'. 'systemctl status nvidia-fabricmanager' shows why "
            "it stopped (a version that does not match the driver is refused), and 'nvidia-smi -q' "
            "shows the fabric state of each GPU. In a container, this is done on the host.",
        ),
    ),
    # CUDA_ERROR_NOT_INITIALIZED (3) at cuInit: the CUDA Driver API's error list
    # (docs.nvidia.com/cuda/cuda-driver-api/group__CUDA__TYPES.html). Its usual causes on a machine
    # whose nvidia-smi works: a driver updated without a restart, the nvidia_uvm module not
    # loaded (/dev/nvidia-uvm missing: NVIDIA's driver README, "Installing the NVIDIA Driver"), and
    # with 575-series drivers on some systems HMM (the maintainers' workaround in
    # ollama/ollama#11593: options nvidia_uvm uvm_disable_hmm=1).
    "CUDA_INIT_FAILED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA could not initialise (error 3, 'initialization error'), so the program runs on the "
            "CPU or stops.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check that 'nvidia-smi' works, then: restart if the driver was updated since the last "
            "start; load the unified-memory module if /dev/nvidia-uvm is missing ('sudo modprobe "
            "nvidia_uvm', or run 'nvidia-smi' once as root, which creates it); in a container, start "
            "it with GPU access ('--gpus all'). With 575-series drivers, some systems need "
            "'options nvidia_uvm uvm_disable_hmm=1' in a file under /etc/modprobe.d, then a restart.",
        ),
    ),
    "CUDA_FORWARD_COMPAT_UNSUPPORTED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA error 804 (forward compatibility was attempted on non supported HW): a CUDA "
            "forward-compatibility libcuda was loaded, but this GPU does not support it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Forward compatibility (the cuda-compat package, /usr/local/cuda/compat) works only "
            "on NVIDIA data-center GPUs, not on GeForce or most RTX cards. Remove the "
            "cuda-compat package from the host ('sudo apt remove cuda-compat-*'), take "
            "/usr/local/cuda/compat out of LD_LIBRARY_PATH, and in a container keep the image's "
            "compat folder out of the library path (for example LD_LIBRARY_PATH="
            "/usr/lib/x86_64-linux-gnu); then the driver's own libcuda is used. If the framework "
            "needs a newer CUDA than the driver supports, update the NVIDIA driver instead. "
            "Outside containers, the same error follows a driver update without a restart: "
            "restart the computer.",
        ),
    ),
    "CUDA_FORWARD_COMPAT_UNSUPPORTED:smi": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA error 804 (forward compatibility was attempted on non supported HW): a CUDA "
            "forward-compatibility libcuda was loaded (nvidia-smi shows driver {driver} with "
            "CUDA {driver_cuda}), but this GPU does not support it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Forward compatibility (the cuda-compat package, /usr/local/cuda/compat) works only "
            "on NVIDIA data-center GPUs, not on GeForce or most RTX cards. Remove the "
            "cuda-compat package from the host ('sudo apt remove cuda-compat-*') and take "
            "/usr/local/cuda/compat out of LD_LIBRARY_PATH, so that driver {driver}'s own libcuda "
            "is used; then install a framework build for the CUDA that driver supports, or "
            "update the NVIDIA driver to one made for CUDA {driver_cuda} or newer.",
        ),
    ),
    "CUDA_DEVICE_NOT_VISIBLE:ordinal": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The program asked for a GPU number this process does not have ('invalid device ordinal').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "GPUs are numbered from 0 among those the process can see, so with one GPU only "
            "'cuda:0' exists. Use 'cuda' or 'cuda:0' instead of 'cuda:1' (or a setting such as "
            "--gpu 1 or device_ids=[0, 1]), or choose the GPU with CUDA_VISIBLE_DEVICES before "
            "starting the program (e.g. 'CUDA_VISIBLE_DEVICES=1 python train.py', then use "
            "'cuda:0'). 'nvidia-smi -L' lists the GPUs this machine has.",
        ),
    ),
    "CUDA_DEVICE_NOT_VISIBLE:ordinal_visible": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The program asked for a GPU number this process does not have ('invalid device "
            "ordinal'); the log sets CUDA_VISIBLE_DEVICES={visible}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA_VISIBLE_DEVICES={visible} leaves the process only the GPUs it lists, renumbered "
            "from 0: with one GPU listed, only 'cuda:0' exists, whatever its number in "
            "nvidia-smi. Use 'cuda:0' (or one process per listed GPU), or list every GPU the "
            "program needs (e.g. CUDA_VISIBLE_DEVICES=0,1). 'nvidia-smi -L' lists the GPUs "
            "this machine has.",
        ),
    ),
    "CUDA_DEVICE_NOT_VISIBLE:ordinal_torchrun": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The launcher started {processes} processes per machine, one per GPU, but this "
            "process has fewer GPUs ('invalid device ordinal').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Each process takes the GPU numbered by its local rank, so --nproc-per-node must not "
            "exceed the number of GPUs visible (nvidia-smi -L lists them; CUDA_VISIBLE_DEVICES "
            "narrows them). Set --nproc-per-node to that number (1 for one GPU) or use "
            "'--nproc-per-node=gpu'. A model split over {processes} GPUs needs that many GPUs, "
            "or a version of it made for fewer.",
        ),
    ),
    "CUDA_DEVICE_NOT_VISIBLE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA found no GPU this process may use ('No CUDA GPUs are available' or 'no "
            "CUDA-capable device is detected').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Most often CUDA_VISIBLE_DEVICES hides the GPUs: an empty value or -1 hides all of "
            "them, and an index this machine does not have (a script that sets "
            "os.environ['CUDA_VISIBLE_DEVICES'] = '3' on a one-GPU machine) hides them too. Check "
            "'echo $CUDA_VISIBLE_DEVICES' and the script, and use an index or UUID from "
            "'nvidia-smi -L' (0 for the first GPU), or unset it. On a cluster, ask the job "
            "scheduler for a GPU (Slurm: --gpus=1 or --gres=gpu:1), which sets "
            "CUDA_VISIBLE_DEVICES for the job. If nvidia-smi itself lists no GPU, the driver is "
            "the problem; in a container, start it with GPU access ('docker run --gpus all ...').",
        ),
    ),
    "CUDA_DEVICE_NOT_VISIBLE:hidden": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA found no GPU: CUDA_VISIBLE_DEVICES is set to '{visible}', which hides every GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "An empty CUDA_VISIBLE_DEVICES or -1 is the usual way to force the CPU. To use the "
            "GPU, unset it ('unset CUDA_VISIBLE_DEVICES', or remove the line that sets it in the "
            "script or the job file) or set it to a GPU from 'nvidia-smi -L', such as "
            "CUDA_VISIBLE_DEVICES=0, before the program starts.",
        ),
    ),
    "CUDA_DEVICE_NOT_VISIBLE:none_visible": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA found no GPU this process may use; the log sets CUDA_VISIBLE_DEVICES={visible}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA_VISIBLE_DEVICES={visible} must name GPUs this machine has: indexes from "
            "'nvidia-smi -L' (0 for the first GPU; CUDA counts the fastest first unless "
            "CUDA_DEVICE_ORDER=PCI_BUS_ID) or their UUIDs (GPU-...). An entry that does not "
            "exist hides it and everything after it. Set it to an existing GPU, e.g. "
            "CUDA_VISIBLE_DEVICES=0 on a one-GPU machine, or unset it.",
        ),
    ),
}


#: GPUs shared between processes: MIG instances, exclusive compute modes, forked workers.
_SHARING_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    # MIG User Guide (docs.nvidia.com/datacenter/tesla/mig-user-guide/), "CUDA Device Enumeration":
    # with CUDA 11/R450 and CUDA 12/R525 "a single CUDA process can only enumerate a single MIG
    # device", chosen with CUDA_VISIBLE_DEVICES=MIG-<UUID> ("MIG-GPU-<UUID>/<GI>/<CI>" with drivers
    # before R470); 'nvidia-smi -L' lists the UUIDs. PyTorch's maintainers: distributed training over
    # several MIG instances is not possible (pytorch/pytorch#130181), and the "num_gpus" internal
    # assert is such a misuse (pytorch/pytorch#131667). Enabling or disabling MIG ('nvidia-smi -i N
    # -mig 0|1') needs the administrator and no process on the GPU (MIG User Guide, "Getting Started").
    "MIG_DEVICE_MISUSED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "PyTorch counted more GPUs than CUDA lets this process use ('device >= 0 && device < "
            "num_gpus INTERNAL ASSERT FAILED'); usually the GPUs are MIG instances.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "On an A100, H100 or H200 in MIG mode a process can use one MIG instance only, and it is "
            "always device 0. Before starting Python, choose the instance: "
            "'CUDA_VISIBLE_DEVICES=MIG-<UUID> python ...' with a UUID from 'nvidia-smi -L' (the job "
            "scheduler may set it for you), and use 'cuda' or 'cuda:0'. Do not set "
            "CUDA_VISIBLE_DEVICES inside the script after torch has started. Without MIG, check that "
            "CUDA_VISIBLE_DEVICES names only GPUs from 'nvidia-smi -L'.",
        ),
    ),
    "MIG_DEVICE_MISUSED:mig": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The GPUs are MIG instances, and this process asked for more than the one MIG instance "
            "a CUDA process can use.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A CUDA process sees one MIG instance only, always as device 0 ('cuda:0'), however many "
            "instances exist or the container was given. Run one process per instance, each started "
            "with 'CUDA_VISIBLE_DEVICES=MIG-<UUID>' (the UUIDs are listed by 'nvidia-smi -L'; with "
            "drivers before R470 the form is MIG-GPU-<UUID>/<GI>/<CI>), and use 'cuda:0' inside it. "
            "Training over several MIG instances (torchrun, DDP, NCCL) does not work: use whole GPUs, "
            "which the administrator gets back by disabling MIG ('sudo nvidia-smi -i 0 -mig 0' with "
            "no process on the GPU).",
        ),
    ),
    # MIG User Guide, "Enable MIG Mode": the change needs a GPU reset, which fails while processes
    # use the GPU ("kill all processes using the device and retry ... or reboot"); on Hopper and
    # newer the driver applies it without a reset. NVIDIA's mig-parted README, "Known Issues"
    # (NVIDIA/mig-parted#181, #182): a loaded nvidia_drm module blocks the reset. NVIDIA's GPU
    # Operator team (NVIDIA/gpu-operator#118): nvidia-persistenced holds the GPU.
    "MIG_RESET_BLOCKED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The MIG mode change is not applied: the GPU could not be reset because other "
            "programs still use it ('In use by another client').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A MIG mode change takes effect when the GPU is reset, and the reset needs every "
            "program off the GPU. Stop what 'nvidia-smi' lists, and the services that keep the "
            "GPU open: nvidia-persistenced, DCGM or dcgm-exporter, nvidia-fabricmanager, a "
            "desktop or X server; unload the display module ('sudo rmmod nvidia_drm', load it "
            "again afterwards). Then reset the GPU ('sudo nvidia-smi --gpu-reset -i 0') or apply "
            "the MIG configuration again, or simply restart the computer, which applies the "
            "pending mode. In a virtual machine whose hypervisor forbids a reset, restart the VM.",
        ),
    ),
    # CUDA Runtime API, cudaError: cudaErrorDevicesUnavailable means "all CUDA devices are busy or
    # unavailable at the current time ... due to use of cudaComputeModeProhibited,
    # cudaComputeModeExclusiveProcess, or when long running CUDA kernels have filled up the GPU".
    # 'nvidia-smi -c DEFAULT' (nvidia-smi(1), "--compute-mode") lets several processes share a GPU;
    # TensorFlow's StreamExecutor owner recommends it in tensorflow/tensorflow#526.
    "GPU_BUSY_OR_EXCLUSIVE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA could not open the GPU: it is busy or unavailable to this process ('CUDA-capable "
            "device(s) is/are busy or unavailable').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Another process may hold a GPU set to exclusive use: 'nvidia-smi' lists the processes "
            "and, under 'Compute M.', the mode ('E. Process' lets one process at a time use the GPU). "
            "Stop that process (or a stuck earlier run of yours), or choose a free GPU with "
            "CUDA_VISIBLE_DEVICES. On a shared server or cluster, ask for the GPU through the job "
            "scheduler; an administrator can allow sharing with 'sudo nvidia-smi -i 0 -c DEFAULT'. "
            "If no process uses the GPU, restart the computer (a virtual GPU may also need its "
            "licence).",
        ),
    ),
    "GPU_BUSY_OR_EXCLUSIVE:exclusive": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA could not open the GPU: it is in an exclusive compute mode ('E. Process') and "
            "another process already uses it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "In exclusive-process mode only one process at a time may use the GPU. 'nvidia-smi' "
            "lists the process that holds it: wait for it or stop it, or choose another GPU with "
            "CUDA_VISIBLE_DEVICES (use a GPU whose 'Compute M.' is 'Default' or that has no "
            "process). An administrator can allow sharing with 'sudo nvidia-smi -i 0 -c DEFAULT'; "
            "on a cluster the exclusive mode is usually intended, so ask the job scheduler for a GPU.",
        ),
    ),
    # PyTorch, "Multiprocessing best practices", "CUDA in multiprocessing": "The CUDA runtime does not
    # support the fork start method; either spawn or forkserver start method are required to use CUDA
    # in subprocesses" (pytorch.org/docs/stable/notes/multiprocessing.html); DataLoader's
    # multiprocessing_context (pytorch.org/docs/stable/data.html).
    "CUDA_FORKED_SUBPROCESS": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "A process forked after CUDA had started tried to use the GPU ('Cannot re-initialize "
            "CUDA in forked subprocess').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA cannot be used in a process created by fork (the default start method on Linux) "
            "once the parent has used it. Start worker processes with 'spawn': call "
            "'torch.multiprocessing.set_start_method(\"spawn\", force=True)' at the start of the "
            "'if __name__ == \"__main__\":' block, or use "
            "'multiprocessing.get_context(\"spawn\")'; for a DataLoader, pass "
            'multiprocessing_context="spawn" or keep GPU work out of the Dataset (move tensors to '
            "the GPU in the training loop), or set num_workers=0. Or do not touch CUDA in the parent "
            "before the workers start.",
        ),
    ),
}

#: The templates, by code (and ``CODE:variant``).
DEVICES_TEMPLATES: Final[dict[str, FindingTemplate]] = {**_DRIVER_TEMPLATES, **_SHARING_TEMPLATES}
