"""The live training test in TensorFlow/Keras: the backend ``train_test.py`` drives and its trainer.

Part of the ``train_test.py`` probe (run by path inside the target environment; stdlib only,
Python 3.7 syntax, never imports gpuwizard). ``tensorflow`` itself is never imported here: the
backend is handed the module ``train_test.py`` imported (``env_report.import_framework``), so
importing this file costs nothing and works where TensorFlow is missing.
"""

import os
import time
from types import ModuleType
from typing import Any

try:  # imported as gpuwizard.probes.train_tensorflow (tests, doctests)
    from . import train_task as task
except ImportError:  # imported by train_test.py run by path: its folder is on sys.path
    import train_task as task  # type: ignore[import-not-found,no-redef]


class TensorflowBackend:
    """The test in TensorFlow/Keras (memory growth is already on: ``env_report.import_framework``)."""

    def __init__(self, tf: ModuleType, config: "dict", gpu_device: str = "/GPU:0") -> None:
        self.tf = tf
        self.config = config
        self.devices = {"gpu": gpu_device, "cpu": "/CPU:0"}
        self.pool_x = None  # type: Any
        self.pool_y = None  # type: Any
        self.threads = task.cpu_budget()
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

    def open_device(self, device: str) -> None:
        """Run one small op on ``device``, so its start-up cost comes before the model's.

        TensorFlow starts its runtime, each GPU device and its CUDA context included, when the
        first op runs (eager execution initialises its context lazily), wherever that op runs.
        """
        tf = self.tf
        with tf.device(self.devices[device]):
            float(tf.reduce_sum(tf.zeros((1,)) + 1.0))

    def make_data(self, samples_per_batch: int) -> None:
        """The synthetic data set (NHWC, on the CPU; each run copies what it uses)."""
        tf = self.tf
        seed = self.config["seed"]
        cells = task.IMAGE[0] // task.PATTERN_CELL
        with tf.device("/CPU:0"):
            patterns = tf.random.stateless_normal((task.CLASSES, cells, cells, task.IMAGE[2]), seed=(seed, 1))
            patterns = tf.repeat(tf.repeat(patterns, task.PATTERN_CELL, axis=1), task.PATTERN_CELL, axis=2)
            shape = (task.POOL_BATCHES, samples_per_batch)
            self.pool_y = tf.random.stateless_uniform(
                shape,
                seed=(seed, 2),
                minval=0,
                maxval=task.CLASSES,
                dtype=tf.int32,
            )
            noise = tf.random.stateless_normal((*shape, *task.IMAGE), seed=(seed, 3))
            self.pool_x = tf.gather(patterns, self.pool_y) * task.SIGNAL + noise

    def build_model(self) -> Any:  # noqa: ANN401 - a framework model, untyped here
        """The CNN (built under the caller's device scope)."""
        tf = self.tf
        keras = tf.keras
        try:
            keras.utils.set_random_seed(self.config["seed"])
        except AttributeError:  # TensorFlow < 2.7
            tf.random.set_seed(self.config["seed"])
        layers = [keras.Input(shape=task.IMAGE)]
        for out_channels in task.CHANNELS:
            layers += [
                keras.layers.Conv2D(out_channels, 3, padding="same", use_bias=False),
                keras.layers.BatchNormalization(),
                keras.layers.ReLU(),
                keras.layers.MaxPooling2D(2),
            ]
        layers += [keras.layers.Flatten(), keras.layers.Dense(task.CLASSES)]
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
            repeats = task.matmul_repeats(time.perf_counter() - began)
            began = time.perf_counter()
            for _ in range(repeats):
                c = tf.linalg.matmul(a, b)
            _ = float(tf.cast(c[0, 0], tf.float32))
            seconds = time.perf_counter() - began
        del a, b, c
        return seconds, repeats

    def compare(self, gpu: "TensorflowTrainer", cpu: "TensorflowTrainer", samples: int) -> "tuple":
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
                for index in range(task.POOL_BATCHES)
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
            rate = task.LEARNING_RATE * tf.sqrt(1.0 - beta2**count) / (1.0 - beta1**count)
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
            inputs, labels = self.batches[self.position % task.POOL_BATCHES]
            self.position += 1
            losses.append(self._step(inputs, labels))
        return [float(value) for value in self.tf.stack(losses).numpy().tolist()]
