"""The live training test in PyTorch: the backend ``train_test.py`` drives and its trainer.

Part of the ``train_test.py`` probe (run by path inside the target environment; stdlib only,
Python 3.7 syntax, never imports gpuwizard). ``torch`` itself is never imported here: the
backend is handed the module ``train_test.py`` imported, so importing this file costs nothing
and works where PyTorch is missing.

The "gpu" is the kind ``torch_devices.choose`` found (``gpu_kind``): CUDA and ROCm through
``torch.cuda`` (device ``cuda:0``), Intel through ``torch.xpu`` (``xpu:0``), Apple through MPS
(``mps``). Each waits for its device and gives cached memory back through its own module
(``torch.cuda``/``torch.xpu``/``torch.mps``: ``synchronize``, ``empty_cache``); TF32 and cuDNN's
autotuner are CUDA's alone.
"""

import time
from types import ModuleType
from typing import Any

try:  # imported as gpuwizard.probes.train_torch (tests, doctests)
    from . import torch_devices
    from . import train_task as task
except ImportError:  # imported by train_test.py run by path: its folder is on sys.path
    import torch_devices  # type: ignore[import-not-found,no-redef]
    import train_task as task  # type: ignore[import-not-found,no-redef]

#: The torch module that waits for each kind's device and frees its cache.
_RUNTIME_MODULES = {"cuda": "cuda", "rocm": "cuda", "xpu": "xpu", "mps": "mps"}


class TorchBackend:
    """The test in PyTorch; ``gpu_device`` is where the "gpu" runs go (``cuda:0``).

    ``gpu_kind`` (``cuda``, ``rocm``, ``xpu``, ``mps``) is the GPU's kind; without it a
    ``cuda`` device is taken for CUDA and any other device (the CPU standing in for a GPU in
    the suite) for none, as before there were kinds.
    """

    matmul_tf32 = False

    def __init__(
        self,
        torch: ModuleType,
        config: "dict",
        gpu_device: "str | None" = None,
        gpu_kind: "str | None" = None,
    ) -> None:
        self.torch = torch
        self.config = config
        if gpu_device is None:
            gpu_device = torch_devices.TORCH_DEVICES.get(gpu_kind or "cuda", "cuda:0")
        if gpu_kind is None and gpu_device.startswith("cuda"):
            gpu_kind = "cuda"
        self.gpu_kind = gpu_kind
        self.devices = {"gpu": gpu_device, "cpu": "cpu"}
        self.on_cuda = gpu_kind == "cuda"
        self.pool_x = None  # type: Any
        self.pool_y = None  # type: Any
        threads = torch.get_num_threads()
        budget = task.cpu_budget()
        if threads > budget:  # torch counts the host's cores, not a container's quota
            torch.set_num_threads(budget)
        if gpu_kind not in (None, "cuda"):
            return  # TF32 is NVIDIA's (tensor cores from Ampere): float32 is float32 elsewhere
        try:
            precision = torch.get_float32_matmul_precision()
            self.matmul_tf32 = precision != "highest"
        except Exception:  # noqa: BLE001 - older torch
            self.matmul_tf32 = bool(torch.backends.cuda.matmul.allow_tf32)

    def cpu_threads(self) -> int:
        """Intra-op threads used on the CPU."""
        return int(self.torch.get_num_threads())

    def open_device(self, device: str) -> None:
        """Use ``device`` once, so its start-up cost comes before the model's.

        On a GPU the first allocation creates the CUDA context (the runtime makes the primary
        context on first use: CUDA C++ Programming Guide, "Initialization") and loads kernels.
        """
        self.torch.zeros(1, device=self.devices[device]).add_(1)
        if device == "gpu":
            self.sync()

    def make_data(self, samples_per_batch: int) -> None:
        """The synthetic data set (on the CPU; each run copies what it uses)."""
        torch = self.torch
        generator = torch.Generator().manual_seed(self.config["seed"])
        cells = task.IMAGE[0] // task.PATTERN_CELL
        patterns = torch.randn(task.CLASSES, task.IMAGE[2], cells, cells, generator=generator)
        patterns = patterns.repeat_interleave(task.PATTERN_CELL, 2).repeat_interleave(task.PATTERN_CELL, 3)
        shape = (task.POOL_BATCHES, samples_per_batch)
        self.pool_y = torch.randint(0, task.CLASSES, shape, generator=generator)
        noise = torch.randn((*shape, task.IMAGE[2], task.IMAGE[0], task.IMAGE[1]), generator=generator)
        self.pool_x = patterns[self.pool_y] * task.SIGNAL + noise

    def build_model(self) -> Any:  # noqa: ANN401 - a framework model, untyped here
        """The CNN, initialised from the seed (the same weights every time)."""
        nn = self.torch.nn
        self.torch.manual_seed(self.config["seed"])
        layers = []
        channels = task.IMAGE[2]
        for out_channels in task.CHANNELS:
            layers += [
                nn.Conv2d(channels, out_channels, 3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
            ]
            channels = out_channels
        side = task.IMAGE[0] // 2 ** len(task.CHANNELS)
        layers += [nn.Flatten(), nn.Linear(channels * side * side, task.CLASSES)]
        return nn.Sequential(*layers)

    def trainer(self, device: str, batch: int) -> "TorchTrainer":
        """A model, optimizer and data on ``device`` (``gpu``/``cpu``)."""
        if device == "gpu" and self.on_cuda:
            # cuDNN's autotuner, measured on NVIDIA GPUs; on ROCm the same switch drives MIOpen's
            # own kernel search instead, which the test leaves at the build's default.
            self.torch.backends.cudnn.benchmark = True
        return TorchTrainer(self, self.devices[device], batch)

    def matmul_dtypes(self, capability: "tuple | None") -> "list":
        """The dtypes the GPU's matmul is measured in: by compute capability on CUDA, else as its kind allows."""
        if self.gpu_kind in (None, "cuda"):
            return task.capability_dtypes(capability)
        return torch_devices.matmul_dtypes(self.torch, self.gpu_kind)

    def matmul(self, size: int, dtype: str) -> "tuple":
        """Time ``size`` x ``size`` matmuls on the GPU; returns (seconds, repeats)."""
        torch = self.torch
        kind = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[dtype]
        device = self.devices["gpu"]
        a = torch.randn(size, size, device=device).to(kind)
        b = torch.randn(size, size, device=device).to(kind)
        c = torch.matmul(a, b)
        self.sync()
        began = time.perf_counter()
        torch.matmul(a, b, out=c)
        self.sync()
        repeats = task.matmul_repeats(time.perf_counter() - began)
        began = time.perf_counter()
        for _ in range(repeats):
            torch.matmul(a, b, out=c)
        self.sync()
        seconds = time.perf_counter() - began
        del a, b, c
        self.release()
        return seconds, repeats

    def compare(self, gpu: "TorchTrainer", cpu: "TorchTrainer", samples: int) -> "tuple":
        """GPU-trained weights on GPU and CPU, same input: (max |diff|, max |CPU logits|)."""
        torch = self.torch
        cpu.model.load_state_dict(gpu.model.state_dict())
        gpu.model.eval()
        cpu.model.eval()
        inputs = self.pool_x[0, :samples]
        with torch.no_grad():
            on_gpu = gpu.model(inputs.to(gpu.device)).float().cpu()
            on_cpu = cpu.model(inputs).float()
        return float((on_gpu - on_cpu).abs().max()), float(on_cpu.abs().max())

    def _runtime(self) -> "ModuleType | None":
        name = _RUNTIME_MODULES.get(self.gpu_kind or "")
        return None if name is None else getattr(self.torch, name)

    def sync(self) -> None:
        """Wait for the GPU (``torch.cuda``, ``torch.xpu`` or ``torch.mps``.synchronize)."""
        runtime = self._runtime()
        if runtime is not None:
            runtime.synchronize()

    def release(self) -> None:
        """Give cached GPU memory back (the kind's ``empty_cache``)."""
        runtime = self._runtime()
        if runtime is not None:
            runtime.empty_cache()

    @staticmethod
    def is_out_of_memory(error: BaseException) -> bool:
        """A GPU allocation failed."""
        return "out of memory" in str(error).lower()


class TorchTrainer:
    """One training run of the CNN on one device."""

    def __init__(self, backend: TorchBackend, device: str, batch: int) -> None:
        self.backend = backend
        self.device = device
        self.batch = batch
        self.model = backend.build_model().to(device)
        self.initial = {key: value.detach().clone() for key, value in self.model.state_dict().items()}
        self.batches = [
            (backend.pool_x[index, :batch].to(device), backend.pool_y[index, :batch].to(device))
            for index in range(task.POOL_BATCHES)
        ]
        self.position = 0
        self.optimizer = None  # type: Any
        self.reset()

    def reset(self) -> None:
        """Back to the initial weights, a fresh optimizer, the first batch."""
        self.model.load_state_dict(self.initial)
        self.model.train()
        self.optimizer = self.backend.torch.optim.Adam(self.model.parameters(), lr=task.LEARNING_RATE)
        self.position = 0

    def steps(self, count: int) -> "list":
        """Run ``count`` training steps, then wait for them; their losses."""
        functional = self.backend.torch.nn.functional
        losses = []
        for _ in range(count):
            inputs, labels = self.batches[self.position % task.POOL_BATCHES]
            self.position += 1
            self.optimizer.zero_grad(set_to_none=True)
            loss = functional.cross_entropy(self.model(inputs), labels)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.detach())
        return [float(value) for value in self.backend.torch.stack(losses).cpu().tolist()]
