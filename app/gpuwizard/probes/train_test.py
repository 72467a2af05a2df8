"""The live training test, run inside the target environment; it measures, the wizard judges.

Run by the environment's own interpreter::

    python train_test.py --framework pytorch|tensorflow [--steps N] [--cpu-steps N] [--batch B]
                         [--cpu-batch B] [--matmul-size N] [--seed S] [--cpu-only]
                         [--device auto|cuda|rocm|xpu|mps]

Stdlib only besides the framework (numpy is never required), Python 3.7 syntax, never imports
gpuwizard. It talks back only through JSON lines on stdout, one event per line, flushed as they
come; an exception anywhere ends in one ``error`` event (phase, device, type, message, traceback) and
exit status 1, an import failure of the framework in ``{"event": "error", "phase": "import"}``
before any ``start``. Bad arguments give an ``error`` event with phase ``usage`` and exit 2.

This file is the entry: the arguments, the events and the run from import to summary. The files
beside it, imported from here (this file puts its folder on ``sys.path``, so it runs from any
current directory): ``train_task.py`` (the task, the model's shape, the CPU budget),
``train_torch.py`` and ``train_tensorflow.py`` (a backend and a trainer per framework), and
``env_report.py`` (the framework's build and GPUs, reported the same way as that probe does)
and ``torch_devices.py`` (which GPU PyTorch trains on: CUDA, ROCm, XPU or MPS).

The GPU (PyTorch): ``--device`` names the kind the plan expects (``cuda``, ``rocm`` for AMD,
``xpu`` for Intel, ``mps`` for Apple), or ``auto`` (the default) takes the first PyTorch sees:
``torch.cuda`` (CUDA, or HIP on a ROCm build), then ``torch.xpu``, then MPS. A kind asked for
and not there is no error: the test trains on the CPU and ``start`` says why (``gpu_unavailable``),
so the wizard can say which GPU it expected and why none is visible.

The task: a synthetic image classification shaped like CIFAR-10 (32x32x3 images, 10 classes;
nothing is downloaded). Each class has a fixed low-frequency colour pattern; an image is its
class pattern (amplitude 0.3) plus unit Gaussian noise, from a fixed seed, so a CNN learns it
within a few dozen steps. The model: three 3x3 convolution blocks (64, 128, 256 channels, each
with batch norm, ReLU and 2x2 max-pooling) and a linear classifier, trained with Adam (lr 1e-3);
about 80 MFLOP per image forward, enough work that a GPU shows its advantage at batch 256.

CPU threads: PyTorch and TensorFlow are kept to the CPUs this process may use (affinity and a
cgroup quota, which they do not read themselves); PyTorch's OpenMP threads wait passively
(``OMP_WAIT_POLICY=PASSIVE`` unless set), so a CPU shared with other work is not made slower
by threads spinning for each other.

Events, in order (fields beyond these may be added, never removed):

- ``prepare`` before each slow preparation that shows no step, so the wizard can say what the
  test is doing: stage ``import`` (with framework) before the framework is imported, so before
  ``start``; stage ``cuda_context`` (device ``gpu``; ``rocm_context``, ``xpu_context`` or
  ``mps_context`` on those GPUs), after ``device_summary`` when the test trains on a GPU,
  before its first use creates the CUDA (HIP, Level Zero, Metal) context; in each warm-up, stage
  ``compile`` (device, warmup_steps) before the model is built and its warm-up steps run (graph
  tracing, kernel autotuning, the optimizer's set-up). A stage lasts until the next event;
  older wizards ignore the kind;
- ``start``: framework, framework_version, python, python_executable, built_with_cuda,
  cuda_build, cudnn_build, arch_list, config, model, import_seconds; each only when known:
  device_requested (``--device`` when not ``auto``), gpu_kind (``cuda``, ``rocm``, ``xpu``,
  ``mps``: the GPU it trains on), gpu_runtime_version (the CUDA or HIP build, the XPU
  toolchain, the macOS version), gpu_unavailable (the kind asked for is not there: expected,
  reason ``not_built``/``other_build``/``no_device``, build, runtime_version, kfd, hidden_by,
  machine, error); then PyTorch's hip_build, TensorFlow's keras_version;
- ``device`` per GPU the framework sees (kind ``gpu``, index, name, gpu_kind, gcn_arch on ROCm,
  compute_capability, memory_total_mib, driver_version on XPU, arch_in_build, ptx_only), then
  ``device`` kind ``cpu`` (name, threads);
  then ``device_summary`` (gpu_count, gpu_available, gpu_used);
- ``phase`` (data, warmup, train, matmul, compare) as each starts, with its device;
- ``step`` per measured training step: device, step (from 1), loss, samples_per_s, batch,
  elapsed_s. Warm-up steps (graph tracing, cuDNN autotuning) are not reported and the weights
  and optimizer are reset after them, so step 1 starts from the initial weights. On a GPU the
  steps are queued in groups and synchronised once per group (a sync per step would measure
  the pipeline drain, not the GPU); each step of a group carries the group's rate;
- ``matmul`` (GPU only) per dtype: float32 (``tf32`` when the framework lets float32 matmul use
  TF32 by default, CUDA only), float16 from compute capability 7.0, bfloat16 from 8.0 (on
  ROCm, XPU and MPS: float16, and bfloat16 where the device supports it): size, tflops,
  seconds, repeats;
- ``compare`` (GPU only): the GPU-trained weights, in inference mode, on the same input on GPU
  and CPU: max_abs_diff, tolerance (``atol + rtol * max |CPU logits|``), ok;
- ``summary``: loss_first (the first measured step), loss_last (the mean of the last five
  steps) of the run on the main device (the GPU when used, else the CPU); samples_per_s per
  device (median over the measured steps), gpu_used, seconds since the probe started, and the
  estimated training TFLOP/s per device;
- ``libraries`` after the training and comparison, just before ``summary`` (and, when the run
  fails after the import, just before its ``error``), when whatever the GPU work loads is loaded:
  ``cuda_libraries`` (each CUDA-family library loaded, ``{"name", "path"}``: where it came from),
  ``cuda_wheels`` (the ``nvidia-*`` distributions installed, ``{"name", "version"}``) and
  ``dll_hook`` (what gpuwizard's DLL start-up hook did, or null: no hook): ``cuda_libraries.py``;
- ``warning`` for each Python warning raised meanwhile (category, message).
"""

import argparse
import contextlib
import json
import math
import os
import platform
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path
from types import ModuleType
from typing import NoReturn, TextIO, Union

try:  # imported as gpuwizard.probes.train_test (tests, doctests)
    from . import cuda_libraries, env_report, torch_devices
    from .process_end import exit_now
    from .train_task import CHANNELS, CLASSES, IMAGE, LEARNING_RATE, capability_dtypes, model_flops_per_sample
    from .train_tensorflow import TensorflowBackend
    from .train_torch import TorchBackend
except ImportError:  # run by path inside the target environment: the files beside this one
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import cuda_libraries  # type: ignore[import-not-found,no-redef]
    import env_report  # type: ignore[import-not-found,no-redef]
    import torch_devices  # type: ignore[import-not-found,no-redef]
    from process_end import exit_now  # type: ignore[import-not-found,no-redef]
    from train_task import (  # type: ignore[import-not-found,no-redef]
        CHANNELS,
        CLASSES,
        IMAGE,
        LEARNING_RATE,
        capability_dtypes,
        model_flops_per_sample,
    )
    from train_tensorflow import TensorflowBackend  # type: ignore[import-not-found,no-redef]
    from train_torch import TorchBackend  # type: ignore[import-not-found,no-redef]

#: loss_last is the mean of the last this many steps.
LOSS_LAST_WINDOW = 5
#: compare: |GPU - CPU| <= ATOL + RTOL * max|CPU| (TF32 convolutions differ by ~1e-3 relative).
COMPARE_ATOL = 1e-3
COMPARE_RTOL = 2e-2
COMPARE_SAMPLES = 64
#: On a GPU, steps are synchronised in groups that take about this long.
GROUP_SECONDS = 0.2

DEFAULTS = {
    "steps": 200,
    "cpu_steps": 20,
    "batch": 256,
    "cpu_batch": 64,
    "warmup": 5,
    "cpu_warmup": 2,
    "matmul_size": 8192,
    "seed": 0,
}


class UsageError(Exception):
    """The command line cannot be used."""


class Output:
    """Writes events as JSON lines and remembers the phase for an ``error`` event."""

    def __init__(self, stream: "TextIO | None" = None) -> None:
        self.stream = stream if stream is not None else sys.stdout
        self.phase = "setup"
        self.device = None  # type: str | None
        self.events = 0
        self._warned = set()  # type: set
        self._held = []  # type: list
        self.holding = True  # warnings wait for ``start`` (or an error), so ``start`` comes first
        self.imported = False  # the framework was imported: a failure after it names the libraries
        self.libraries_sent = False

    def emit(self, event: str, **fields: object) -> None:
        """Write one event (non-finite floats become null, so every line is strict JSON)."""
        record = {"event": event}  # type: dict[str, object]
        record.update(fields)
        line = json.dumps(_finite(record), sort_keys=False)
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (BrokenPipeError, ValueError):  # the wizard is gone: nobody to train for
            os._exit(1)
        self.events += 1

    def release_warnings(self) -> None:
        """Write the warnings held back so far; later ones are written as they come."""
        self.holding = False
        held, self._held = self._held, []
        for fields in held:
            self.emit("warning", **fields)

    def prepare(self, stage: str, **fields: object) -> None:
        """Say that a slow preparation begins (the phase, which errors name, stays as it is)."""
        self.emit("prepare", stage=stage, **fields)

    def start_phase(self, phase: str, device: "str | None" = None) -> None:
        """Enter ``phase`` and say so."""
        self.phase = phase
        self.device = device
        self.emit("phase", phase=phase, device=device)

    def error(self, error: BaseException, trace: str, phase: "str | None" = None) -> None:
        """The ``error`` event for an exception (after any warnings held back: they may explain it)."""
        self.release_warnings()
        self.emit(
            "error",
            phase=phase or self.phase,
            device=None if phase else self.device,
            type=type(error).__name__,
            message=str(error),
            traceback=trace[-8000:],
        )

    def libraries(self) -> None:
        """The ``libraries`` event, once: the CUDA libraries loaded by now, the NVIDIA wheels, the DLL hook."""
        if not self.libraries_sent:
            self.libraries_sent = True
            self.emit("libraries", **cuda_libraries.library_facts())

    def warning(self, message: object, category: "type", *_args: object, **_kwargs: object) -> None:
        """``warnings.showwarning`` replacement: each distinct warning once, as an event."""
        text = str(message)
        if text in self._warned:
            return
        self._warned.add(text)
        fields = {"phase": self.phase, "category": category.__name__, "message": text}
        if self.holding:
            self._held.append(fields)
        else:
            self.emit("warning", **fields)


def _finite(value: object) -> object:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> "NoReturn":
        raise UsageError(message)


def parse_args(argv: "list") -> "dict":
    """The configuration from the command line, defaults filled in.

    Raises:
        UsageError: Unknown or bad arguments.
    """
    parser = _Parser(prog="train_test.py", add_help=False)
    parser.add_argument("--framework", required=True, choices=("pytorch", "tensorflow", "tensorflow-gpu"))
    for name in ("steps", "cpu_steps", "batch", "cpu_batch", "warmup", "cpu_warmup", "matmul_size"):
        parser.add_argument("--" + name.replace("_", "-"), type=int, default=DEFAULTS[name])
    parser.add_argument("--seed", type=int, default=DEFAULTS["seed"])
    parser.add_argument("--cpu-only", action="store_true")
    parser.add_argument("--device", choices=torch_devices.REQUESTS, default="auto")
    args = parser.parse_args(argv)
    config = vars(args)
    if config["framework"] == "tensorflow-gpu":
        config["framework"] = "tensorflow"
    for name in ("steps", "cpu_steps", "batch", "cpu_batch", "matmul_size"):
        if config[name] < 1:
            raise UsageError("--%s must be at least 1" % name.replace("_", "-"))
    for name in ("warmup", "cpu_warmup"):
        if config[name] < 0:
            raise UsageError("--%s must not be negative" % name.replace("_", "-"))
    return config


def cpu_name() -> str:
    """The processor's marketing name where the OS says it, else its architecture."""
    try:
        with Path("/proc/cpuinfo").open() as handle:
            for line in handle:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "cpu"


def median(values: "list") -> "float | None":
    """The median of ``values``, None for none.

    >>> median([3.0, 1.0, 2.0]), median([1.0, 2.0]), median([])
    (2.0, 1.5, None)
    """
    ordered = sorted(values)
    if not ordered:
        return None
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return float(ordered[middle])
    return (ordered[middle - 1] + ordered[middle]) / 2.0


Backend = Union[TorchBackend, TensorflowBackend]


def _rounded(value: "float | None", digits: int) -> "float | None":
    return None if value is None else round(value, digits)


def make_backend(framework: str, module: ModuleType, config: "dict") -> "Backend":
    """The backend for the imported framework module (PyTorch's on ``config["gpu_kind"]``'s GPU)."""
    if framework == "pytorch":
        return TorchBackend(module, config, gpu_kind=config.get("gpu_kind"))
    return TensorflowBackend(module, config)


def train(backend: "Backend", out: Output, device: str, *, steps: int, batch: int, warmup: int) -> "tuple":
    """Warm up, reset, then ``steps`` measured steps on ``device``; returns (trainer, losses, rates)."""
    out.start_phase("warmup", device)
    out.prepare("compile", device=device, warmup_steps=warmup)
    trainer = backend.trainer(device, batch)
    last_step = None
    for _ in range(warmup):
        check_interrupted()
        began = time.perf_counter()
        trainer.steps(1)
        last_step = time.perf_counter() - began
    trainer.reset()
    group = 1
    if device == "gpu" and last_step is not None:
        group = int(max(1, min(50, GROUP_SECONDS // max(last_step, 1e-6))))
    out.start_phase("train", device)
    losses = []  # type: list
    rates = []  # type: list
    train_began = time.perf_counter()
    done = 0
    while done < steps:
        check_interrupted()
        count = min(group, steps - done)
        began = time.perf_counter()
        group_losses = trainer.steps(count)
        elapsed = time.perf_counter() - began
        rate = count * batch / max(elapsed, 1e-9)
        for loss in group_losses:
            done += 1
            losses.append(loss)
            rates.append(rate)
            out.emit(
                "step",
                device=device,
                step=done,
                loss=loss,
                samples_per_s=round(rate, 2),
                batch=batch,
                elapsed_s=round(time.perf_counter() - train_began, 4),
            )
    return trainer, losses, rates


def measure_matmul(backend: "Backend", out: Output, size: int, capability: "str | None") -> None:
    """The GPU's achieved TFLOP/s on large matmuls, per dtype it supports."""
    out.start_phase("matmul", "gpu")
    major = env_report.capability_tuple(capability)
    chooser = getattr(backend, "matmul_dtypes", None)  # PyTorch's knows its kinds; else by capability
    dtypes = chooser(major) if callable(chooser) else capability_dtypes(major)
    for dtype in dtypes:
        current = size
        while True:
            try:
                seconds, repeats = backend.matmul(current, dtype)
                break
            except Exception as error:
                if not backend.is_out_of_memory(error) or current <= 1024:
                    raise
                backend.release()
                current //= 2
        label = "tf32" if dtype == "float32" and backend.matmul_tf32 else dtype
        tflops = 2.0 * current**3 * repeats / max(seconds, 1e-9) / 1e12
        out.emit(
            "matmul",
            device="gpu",
            size=current,
            dtype=label,
            # Four significant digits, not three decimals: a slow device (the CPU standing
            # in for a GPU, float16 on a loaded CPU) measures well under 0.001 TFLOPS.
            tflops=float("%.4g" % tflops),
            seconds=round(seconds, 4),
            repeats=repeats,
        )


def run(config: "dict", out: Output, started: float) -> int:
    """The whole test; returns the exit status (errors propagate to ``main``)."""
    framework = config["framework"]
    out.phase = "import"
    if framework == "pytorch":
        # OpenMP threads that spin while they wait make a CPU that anything else is using
        # 2-3x slower (measured on 2 cores); waiting passively costs nothing measurable alone.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    out.prepare("import", framework=framework)
    try:
        module = env_report.import_framework(framework)
    except env_report.ImportFailed as failure:
        out.release_warnings()
        out.emit(
            "error",
            phase="import",
            framework=framework,
            type=type(failure.cause).__name__,
            message=str(failure.cause),
            traceback=failure.trace[-8000:],
        )
        return 1
    import_seconds = time.perf_counter() - started
    out.imported = True
    out.phase = "start"
    report = env_report.framework_report(framework, module, config.get("device", "auto"))
    config = dict(config, gpu_kind=report.get("gpu_kind"))
    backend = make_backend(framework, module, config)
    return run_backend(config, out, report, backend, started=started, import_seconds=import_seconds)


def run_backend(
    config: "dict",
    out: Output,
    report: "dict",
    backend: "Backend",
    *,
    started: float,
    import_seconds: float = 0.0,
) -> int:
    """The test with an imported framework: ``report`` from env_report, ``backend`` to train with."""
    framework = config["framework"]
    gpus = list(report.get("gpus") or [])
    use_gpu = bool(gpus) and not config["cpu_only"]
    flops = model_flops_per_sample()
    extra = {key: report[key] for key in ("keras_version", "hip_build") if key in report}
    # The GPU kind and why one asked for is not there: only what is known, so a CPU run's
    # `start` reads as before; in the order of the wizard's Start event (before the extras).
    requested = config.get("device", "auto")
    device_facts = {
        "device_requested": None if requested == "auto" else requested,
        "gpu_kind": report.get("gpu_kind"),
        "gpu_runtime_version": report.get("gpu_runtime_version"),
        "gpu_unavailable": report.get("gpu_unavailable"),
    }
    device_facts = {key: value for key, value in device_facts.items() if value is not None}
    out.emit(
        "start",
        probe="train_test",
        framework=framework,
        framework_version=report.get("framework_version"),
        built_with_cuda=report.get("built_with_cuda"),
        cuda_build=report.get("cuda_build"),
        cudnn_build=report.get("cudnn_build"),
        arch_list=list(report.get("arch_list") or []),
        config={
            "steps": config["steps"],
            "cpu_steps": config["cpu_steps"],
            "batch": config["batch"],
            "cpu_batch": config["cpu_batch"],
            "warmup": config["warmup"],
            "cpu_warmup": config["cpu_warmup"],
            "image": list(IMAGE),
            "classes": CLASSES,
            "matmul_size": config["matmul_size"],
            "seed": config["seed"],
            "cpu_only": config["cpu_only"],
        },
        model={
            "channels": list(CHANNELS),
            "flops_per_sample": flops,
            "optimizer": "adam",
            "lr": LEARNING_RATE,
        },
        import_seconds=round(import_seconds, 3),
        **dict(env_report.python_info(), **dict(device_facts, **extra)),
    )
    out.release_warnings()
    for gpu in gpus:
        out.emit("device", kind="gpu", **gpu)
    out.emit("device", kind="cpu", name=cpu_name(), threads=backend.cpu_threads())
    out.emit("device_summary", gpu_count=len(gpus), gpu_available=bool(gpus), gpu_used=use_gpu)

    if use_gpu:
        # Before anything else runs: TensorFlow starts its runtime, GPUs and their CUDA contexts
        # included, on its first op wherever it runs (the data below are made on the CPU).
        kind = report.get("gpu_kind")
        out.prepare("%s_context" % kind if kind in ("rocm", "xpu", "mps") else "cuda_context", device="gpu")
        backend.open_device("gpu")
    out.start_phase("data", None)
    backend.make_data(max(config["batch"] if use_gpu else 1, config["cpu_batch"]))

    rates = {"gpu": None, "cpu": None}  # type: dict
    main_losses = []  # type: list
    gpu_trainer = None
    if use_gpu:
        gpu_trainer, main_losses, gpu_rates = train(
            backend, out, "gpu", steps=config["steps"], batch=config["batch"], warmup=config["warmup"]
        )
        rates["gpu"] = median(gpu_rates)
        measure_matmul(backend, out, config["matmul_size"], gpus[0].get("compute_capability"))
    cpu_trainer, cpu_losses, cpu_rates = train(
        backend, out, "cpu", steps=config["cpu_steps"], batch=config["cpu_batch"], warmup=config["cpu_warmup"]
    )
    rates["cpu"] = median(cpu_rates)
    if not use_gpu:
        main_losses = cpu_losses
    if gpu_trainer is not None:
        out.start_phase("compare", None)
        difference, scale = backend.compare(gpu_trainer, cpu_trainer, COMPARE_SAMPLES)
        tolerance = COMPARE_ATOL + COMPARE_RTOL * max(1.0, scale)
        out.emit(
            "compare",
            max_abs_diff=difference,
            tolerance=tolerance,
            ok=bool(difference <= tolerance),
            samples=COMPARE_SAMPLES,
        )
    out.phase, out.device = "summary", None
    out.libraries()  # after the GPU work: every library it needed is loaded by now
    window = main_losses[-LOSS_LAST_WINDOW:]
    out.emit(
        "summary",
        loss_first=main_losses[0] if main_losses else None,
        loss_last=sum(window) / len(window) if window else None,
        samples_per_s={device: _rounded(rate, 2) for device, rate in rates.items()},
        gpu_used=use_gpu,
        seconds=round(time.perf_counter() - started, 3),
        steps={"gpu": config["steps"] if use_gpu else None, "cpu": config["cpu_steps"]},
        train_tflops={
            device: (None if rate is None else _rounded(3.0 * flops * rate / 1e12, 4))
            for device, rate in rates.items()
        },
    )
    return 0


#: The signals received: a KeyboardInterrupt that code in between swallowed (one raised inside a
#: finalizer is printed and dropped, Python's ``signal`` docs, "Note on Signal Handlers and
#: Exceptions"; a framework's own ``except BaseException``) is raised again at the next step, so
#: an interrupted probe always ends, and says so.
_INTERRUPTED = []  # type: list


def _on_interrupt(signum: int, frame: object) -> None:
    _INTERRUPTED.append(signum)
    raise KeyboardInterrupt


def check_interrupted() -> None:
    """Raise KeyboardInterrupt again when Ctrl+C came but its first one was lost."""
    if _INTERRUPTED:
        raise KeyboardInterrupt


def main(argv: "list | None" = None) -> int:
    """Run the probe; 0 when it measured, 1 on an error (reported as an event), 2 on bad usage."""
    started = time.perf_counter()
    out = Output()
    try:
        config = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as error:
        out.error(error, "", phase="usage")
        return 2
    previous = warnings.showwarning
    warnings.showwarning = out.warning
    del _INTERRUPTED[:]
    handler = signal.getsignal(signal.SIGINT)
    with contextlib.suppress(ValueError):  # not the main thread (a test calling main()): Python's stays
        signal.signal(signal.SIGINT, _on_interrupt)
    try:
        return run(config, out, started)
    except BaseException as error:  # noqa: BLE001 - never crash without saying why
        trace = traceback.format_exc()
        if out.imported and not isinstance(error, KeyboardInterrupt):
            with contextlib.suppress(Exception):  # which library came from where may explain it
                out.libraries()
        out.error(error, trace)
        return 1
    finally:
        warnings.showwarning = previous
        with contextlib.suppress(ValueError, TypeError):
            signal.signal(signal.SIGINT, handler)


if __name__ == "__main__":
    exit_now(main())
