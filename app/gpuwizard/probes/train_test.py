"""The live training test, run inside the target environment; it measures, the wizard judges.

Run by the environment's own interpreter::

    python train_test.py --framework pytorch|tensorflow [--steps N] [--cpu-steps N] [--batch B]
                         [--cpu-batch B] [--matmul-size N] [--seed S] [--cpu-only]

Stdlib only besides the framework (numpy is never required), Python 3.7 syntax, never imports
gpuwizard. It talks back only through JSON lines on stdout, one event per line, flushed as they
come; an exception anywhere ends in one ``error`` event (phase, device, type, message, traceback) and
exit status 1, an import failure of the framework in ``{"event": "error", "phase": "import"}``
before any ``start``. Bad arguments give an ``error`` event with phase ``usage`` and exit 2.

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

- ``start``: framework, framework_version, python, python_executable, built_with_cuda,
  cuda_build, cudnn_build, arch_list, config, model, import_seconds;
- ``device`` per GPU the framework sees (kind ``gpu``, index, name, compute_capability,
  memory_total_mib, arch_in_build, ptx_only), then ``device`` kind ``cpu`` (name, threads);
  then ``device_summary`` (gpu_count, gpu_available, gpu_used);
- ``phase`` (data, warmup, train, matmul, compare) as each starts, with its device;
- ``step`` per measured training step: device, step (from 1), loss, samples_per_s, batch,
  elapsed_s. Warm-up steps (graph tracing, cuDNN autotuning) are not reported and the weights
  and optimizer are reset after them, so step 1 starts from the initial weights. On a GPU the
  steps are queued in groups and synchronised once per group (a sync per step would measure
  the pipeline drain, not the GPU); each step of a group carries the group's rate;
- ``matmul`` (GPU only) per dtype: float32 (``tf32`` when the framework lets float32 matmul use
  TF32 by default), float16 from compute capability 7.0, bfloat16 from 8.0: size, tflops,
  seconds, repeats;
- ``compare`` (GPU only): the GPU-trained weights, in inference mode, on the same input on GPU
  and CPU: max_abs_diff, tolerance (``atol + rtol * max |CPU logits|``), ok;
- ``summary``: loss_first (the first measured step), loss_last (the mean of the last five
  steps) of the run on the main device (the GPU when used, else the CPU); samples_per_s per
  device (median over the measured steps), gpu_used, seconds since the probe started, and the
  estimated training TFLOP/s per device;
- ``warning`` for each Python warning raised meanwhile (category, message).
"""

import argparse
import json
import math
import os
import platform
import sys
import time
import traceback
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn, TextIO, Union

try:  # imported as gpuwizard.probes.train_test (tests, doctests)
    from . import env_report
except ImportError:  # run by path inside the target environment: the file beside this one
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import env_report  # type: ignore[import-not-found,no-redef]

IMAGE = (32, 32, 3)
CLASSES = 10
CHANNELS = (64, 128, 256)
#: Distinct batches in the synthetic data set, cycled through.
POOL_BATCHES = 8
#: Class patterns are constant over PATTERN_CELL x PATTERN_CELL pixel squares.
PATTERN_CELL = 8
SIGNAL = 0.3
LEARNING_RATE = 1e-3
#: loss_last is the mean of the last this many steps.
LOSS_LAST_WINDOW = 5
#: compare: |GPU - CPU| <= ATOL + RTOL * max|CPU| (TF32 convolutions differ by ~1e-3 relative).
COMPARE_ATOL = 1e-3
COMPARE_RTOL = 2e-2
COMPARE_SAMPLES = 64
#: Each matmul measurement runs at least this long (repeats are chosen from one timed run).
MATMUL_SECONDS = 0.5
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


def model_flops_per_sample() -> float:
    """Forward-pass FLOPs of the model for one image (multiply-adds count two).

    >>> round(model_flops_per_sample() / 1e6, 1)
    79.1
    """
    height, width, channels = IMAGE
    flops = 0.0
    for out_channels in CHANNELS:
        flops += 2.0 * height * width * out_channels * channels * 9
        height, width, channels = height // 2, width // 2, out_channels
    return flops + 2.0 * height * width * channels * CLASSES


def cpu_budget() -> int:
    """CPUs this process may use: affinity, then a cgroup quota (containers), at least 1."""
    try:
        count = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        count = os.cpu_count() or 1
    try:
        with Path("/sys/fs/cgroup/cpu.max").open() as handle:
            quota, period = handle.read().split()[:2]
        if quota != "max":
            count = min(count, max(1, math.ceil(float(quota) / float(period))))
    except (OSError, ValueError):
        pass
    return max(1, count)


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


class TorchBackend:
    """The test in PyTorch; ``gpu_device`` is where the "gpu" runs go (``cuda:0``)."""

    matmul_tf32 = False

    def __init__(self, torch: ModuleType, config: "dict", gpu_device: str = "cuda:0") -> None:
        self.torch = torch
        self.config = config
        self.devices = {"gpu": gpu_device, "cpu": "cpu"}
        self.on_cuda = gpu_device.startswith("cuda")
        self.pool_x = None  # type: Any
        self.pool_y = None  # type: Any
        threads = torch.get_num_threads()
        budget = cpu_budget()
        if threads > budget:  # torch counts the host's cores, not a container's quota
            torch.set_num_threads(budget)
        try:
            precision = torch.get_float32_matmul_precision()
            self.matmul_tf32 = precision != "highest"
        except Exception:  # noqa: BLE001 - older torch
            self.matmul_tf32 = bool(torch.backends.cuda.matmul.allow_tf32)

    def cpu_threads(self) -> int:
        """Intra-op threads used on the CPU."""
        return int(self.torch.get_num_threads())

    def make_data(self, samples_per_batch: int) -> None:
        """The synthetic data set (on the CPU; each run copies what it uses)."""
        torch = self.torch
        generator = torch.Generator().manual_seed(self.config["seed"])
        cells = IMAGE[0] // PATTERN_CELL
        patterns = torch.randn(CLASSES, IMAGE[2], cells, cells, generator=generator)
        patterns = patterns.repeat_interleave(PATTERN_CELL, 2).repeat_interleave(PATTERN_CELL, 3)
        shape = (POOL_BATCHES, samples_per_batch)
        self.pool_y = torch.randint(0, CLASSES, shape, generator=generator)
        noise = torch.randn((*shape, IMAGE[2], IMAGE[0], IMAGE[1]), generator=generator)
        self.pool_x = patterns[self.pool_y] * SIGNAL + noise

    def build_model(self) -> Any:  # noqa: ANN401 - a framework model, untyped here
        """The CNN, initialised from the seed (the same weights every time)."""
        nn = self.torch.nn
        self.torch.manual_seed(self.config["seed"])
        layers = []
        channels = IMAGE[2]
        for out_channels in CHANNELS:
            layers += [
                nn.Conv2d(channels, out_channels, 3, padding=1, bias=False),
                nn.BatchNorm2d(out_channels),
                nn.ReLU(inplace=True),
                nn.MaxPool2d(2),
            ]
            channels = out_channels
        side = IMAGE[0] // 2 ** len(CHANNELS)
        layers += [nn.Flatten(), nn.Linear(channels * side * side, CLASSES)]
        return nn.Sequential(*layers)

    def trainer(self, device: str, batch: int) -> "TorchTrainer":
        """A model, optimizer and data on ``device`` (``gpu``/``cpu``)."""
        if device == "gpu" and self.on_cuda:
            self.torch.backends.cudnn.benchmark = True
        return TorchTrainer(self, self.devices[device], batch)

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
        repeats = _repeats(time.perf_counter() - began)
        began = time.perf_counter()
        for _ in range(repeats):
            torch.matmul(a, b, out=c)
        self.sync()
        seconds = time.perf_counter() - began
        del a, b, c
        self.release()
        return seconds, repeats

    def compare(self, gpu: "Trainer", cpu: "Trainer", samples: int) -> "tuple":
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

    def sync(self) -> None:
        """Wait for the GPU."""
        if self.on_cuda:
            self.torch.cuda.synchronize()

    def release(self) -> None:
        """Give cached GPU memory back."""
        if self.on_cuda:
            self.torch.cuda.empty_cache()

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
            for index in range(POOL_BATCHES)
        ]
        self.position = 0
        self.optimizer = None  # type: Any
        self.reset()

    def reset(self) -> None:
        """Back to the initial weights, a fresh optimizer, the first batch."""
        self.model.load_state_dict(self.initial)
        self.model.train()
        self.optimizer = self.backend.torch.optim.Adam(self.model.parameters(), lr=LEARNING_RATE)
        self.position = 0

    def steps(self, count: int) -> "list":
        """Run ``count`` training steps, then wait for them; their losses."""
        functional = self.backend.torch.nn.functional
        losses = []
        for _ in range(count):
            inputs, labels = self.batches[self.position % POOL_BATCHES]
            self.position += 1
            self.optimizer.zero_grad(set_to_none=True)
            loss = functional.cross_entropy(self.model(inputs), labels)
            loss.backward()
            self.optimizer.step()
            losses.append(loss.detach())
        return [float(value) for value in self.backend.torch.stack(losses).cpu().tolist()]


class TensorflowBackend:
    """The test in TensorFlow/Keras (memory growth is already on: ``env_report.import_framework``)."""

    def __init__(self, tf: ModuleType, config: "dict", gpu_device: str = "/GPU:0") -> None:
        self.tf = tf
        self.config = config
        self.devices = {"gpu": gpu_device, "cpu": "/CPU:0"}
        self.pool_x = None  # type: Any
        self.pool_y = None  # type: Any
        self.threads = cpu_budget()
        if self.threads < (os.cpu_count() or 1):  # a container quota TensorFlow does not see
            try:
                tf.config.threading.set_intra_op_parallelism_threads(self.threads)
                tf.config.threading.set_inter_op_parallelism_threads(self.threads)
            except RuntimeError:  # the runtime is already up; keep its choice
                pass
        try:
            self.matmul_tf32 = bool(tf.config.experimental.tensor_float_32_execution_enabled())
        except Exception:  # noqa: BLE001 - TensorFlow < 2.4 has no TF32
            self.matmul_tf32 = False

    def cpu_threads(self) -> int:
        """Intra-op threads used on the CPU."""
        configured = self.tf.config.threading.get_intra_op_parallelism_threads()
        return int(configured) if configured else self.threads

    def make_data(self, samples_per_batch: int) -> None:
        """The synthetic data set (NHWC, on the CPU; each run copies what it uses)."""
        tf = self.tf
        seed = self.config["seed"]
        cells = IMAGE[0] // PATTERN_CELL
        with tf.device("/CPU:0"):
            patterns = tf.random.stateless_normal((CLASSES, cells, cells, IMAGE[2]), seed=(seed, 1))
            patterns = tf.repeat(tf.repeat(patterns, PATTERN_CELL, axis=1), PATTERN_CELL, axis=2)
            shape = (POOL_BATCHES, samples_per_batch)
            self.pool_y = tf.random.stateless_uniform(
                shape,
                seed=(seed, 2),
                minval=0,
                maxval=CLASSES,
                dtype=tf.int32,
            )
            noise = tf.random.stateless_normal((*shape, *IMAGE), seed=(seed, 3))
            self.pool_x = tf.gather(patterns, self.pool_y) * SIGNAL + noise

    def build_model(self) -> Any:  # noqa: ANN401 - a framework model, untyped here
        """The CNN (built under the caller's device scope)."""
        tf = self.tf
        keras = tf.keras
        try:
            keras.utils.set_random_seed(self.config["seed"])
        except AttributeError:  # TensorFlow < 2.7
            tf.random.set_seed(self.config["seed"])
        layers = [keras.Input(shape=IMAGE)]
        for out_channels in CHANNELS:
            layers += [
                keras.layers.Conv2D(out_channels, 3, padding="same", use_bias=False),
                keras.layers.BatchNormalization(),
                keras.layers.ReLU(),
                keras.layers.MaxPooling2D(2),
            ]
        layers += [keras.layers.Flatten(), keras.layers.Dense(CLASSES)]
        return keras.Sequential(layers)

    def trainer(self, device: str, batch: int) -> "TensorflowTrainer":
        """A model, optimizer and data on ``device`` (``gpu``/``cpu``)."""
        return TensorflowTrainer(self, self.devices[device], batch)

    def matmul(self, size: int, dtype: str) -> "tuple":
        """Time ``size`` x ``size`` matmuls on the GPU; returns (seconds, repeats)."""
        tf = self.tf
        kind = {"float32": tf.float32, "float16": tf.float16, "bfloat16": tf.bfloat16}[dtype]
        with tf.device(self.devices["gpu"]):
            a = tf.cast(tf.random.normal((size, size)), kind)
            b = tf.cast(tf.random.normal((size, size)), kind)
            c = tf.linalg.matmul(a, b)
            _ = float(tf.cast(c[0, 0], tf.float32))  # waits for the GPU
            began = time.perf_counter()
            c = tf.linalg.matmul(a, b)
            _ = float(tf.cast(c[0, 0], tf.float32))
            repeats = _repeats(time.perf_counter() - began)
            began = time.perf_counter()
            for _ in range(repeats):
                c = tf.linalg.matmul(a, b)
            _ = float(tf.cast(c[0, 0], tf.float32))
            seconds = time.perf_counter() - began
        del a, b, c
        return seconds, repeats

    def compare(self, gpu: "Trainer", cpu: "Trainer", samples: int) -> "tuple":
        """GPU-trained weights on GPU and CPU, same input: (max |diff|, max |CPU logits|)."""
        tf = self.tf
        cpu.model.set_weights(gpu.model.get_weights())
        inputs = self.pool_x[0, :samples]
        with tf.device(gpu.device):
            on_gpu = tf.cast(gpu.model(tf.identity(inputs), training=False), tf.float32).numpy()
        with tf.device(cpu.device):
            on_cpu = tf.cast(cpu.model(tf.identity(inputs), training=False), tf.float32).numpy()
        return float(abs(on_gpu - on_cpu).max()), float(abs(on_cpu).max())

    def sync(self) -> None:
        """Nothing to do: every measurement reads a result back, which waits."""

    def release(self) -> None:
        """Nothing to do: TensorFlow keeps its memory pool."""

    @staticmethod
    def is_out_of_memory(error: BaseException) -> bool:
        """A GPU allocation failed."""
        return type(error).__name__ == "ResourceExhaustedError" or "out of memory" in str(error).lower()


class TensorflowTrainer:
    """One training run of the CNN on one device: Adam written out, so any Keras version works."""

    def __init__(self, backend: TensorflowBackend, device: str, batch: int) -> None:
        tf = backend.tf
        self.tf = tf
        self.device = device
        self.batch = batch
        with tf.device(device):
            self.model = backend.build_model()
            self.variables = list(self.model.trainable_variables)
            self.moments = [self._zeros(variable) for variable in self.variables]
            self.squares = [self._zeros(variable) for variable in self.variables]
            self.count = tf.Variable(0.0, trainable=False)
            self.batches = [
                (tf.identity(backend.pool_x[index, :batch]), tf.identity(backend.pool_y[index, :batch]))
                for index in range(POOL_BATCHES)
            ]
        self.initial = self.model.get_weights()
        self.position = 0
        self._step = tf.function(self._train_step)

    def _zeros(self, variable: Any) -> Any:  # noqa: ANN401 - framework variables
        return self.tf.Variable(self.tf.zeros(variable.shape, dtype=variable.dtype), trainable=False)

    def _train_step(self, inputs: Any, labels: Any) -> Any:  # noqa: ANN401 - framework tensors
        tf = self.tf
        beta1, beta2, epsilon = 0.9, 0.999, 1e-7
        with tf.device(self.device):
            with tf.GradientTape() as tape:
                logits = self.model(inputs, training=True)
                loss = tf.reduce_mean(
                    tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
                )
            gradients = tape.gradient(loss, self.variables)
            count = self.count.assign_add(1.0)
            rate = LEARNING_RATE * tf.sqrt(1.0 - beta2**count) / (1.0 - beta1**count)
            slots = zip(self.variables, gradients, self.moments, self.squares)  # noqa: B905 - Python 3.7
            for variable, gradient, moment, square in slots:
                moment.assign(beta1 * moment + (1.0 - beta1) * gradient)
                square.assign(beta2 * square + (1.0 - beta2) * tf.square(gradient))
                variable.assign_sub(rate * moment / (tf.sqrt(square) + epsilon))
        return loss

    def reset(self) -> None:
        """Back to the initial weights, a fresh optimizer, the first batch."""
        self.model.set_weights(self.initial)
        for slot in self.moments + self.squares:
            slot.assign(self.tf.zeros_like(slot))
        self.count.assign(0.0)
        self.position = 0

    def steps(self, count: int) -> "list":
        """Run ``count`` training steps, then wait for them; their losses."""
        losses = []
        for _ in range(count):
            inputs, labels = self.batches[self.position % POOL_BATCHES]
            self.position += 1
            losses.append(self._step(inputs, labels))
        return [float(value) for value in self.tf.stack(losses).numpy().tolist()]


Backend = Union[TorchBackend, TensorflowBackend]
Trainer = Union[TorchTrainer, TensorflowTrainer]


def _rounded(value: "float | None", digits: int) -> "float | None":
    return None if value is None else round(value, digits)


def _repeats(one_run: float) -> int:
    """Repeats that make a matmul measurement last about MATMUL_SECONDS."""
    return int(max(3, min(1000, math.ceil(MATMUL_SECONDS / max(one_run, 1e-6)))))


def make_backend(framework: str, module: ModuleType, config: "dict") -> "Backend":
    """The backend for the imported framework module."""
    if framework == "pytorch":
        return TorchBackend(module, config)
    return TensorflowBackend(module, config)


def train(backend: "Backend", out: Output, device: str, *, steps: int, batch: int, warmup: int) -> "tuple":
    """Warm up, reset, then ``steps`` measured steps on ``device``; returns (trainer, losses, rates)."""
    out.start_phase("warmup", device)
    trainer = backend.trainer(device, batch)
    last_step = None
    for _ in range(warmup):
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
    dtypes = ["float32"]
    if major is None or major >= (7, 0):
        dtypes.append("float16")
    if major is None or major >= (8, 0):
        dtypes.append("bfloat16")
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
            tflops=round(tflops, 3),
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
    out.phase = "start"
    report = env_report.framework_report(framework, module)
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
        **dict(env_report.python_info(), **extra),
    )
    out.release_warnings()
    for gpu in gpus:
        out.emit("device", kind="gpu", **gpu)
    out.emit("device", kind="cpu", name=cpu_name(), threads=backend.cpu_threads())
    out.emit("device_summary", gpu_count=len(gpus), gpu_available=bool(gpus), gpu_used=use_gpu)

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
    try:
        return run(config, out, started)
    except BaseException as error:  # noqa: BLE001 - never crash without saying why
        out.error(error, traceback.format_exc())
        return 1
    finally:
        warnings.showwarning = previous


if __name__ == "__main__":
    sys.exit(main())
