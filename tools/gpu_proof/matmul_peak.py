"""Run with a Python that has PyTorch: the measured matmul peak, bf16 and fp32, as JSON.

Large square matrices multiplied again and again on the GPU (the CPU where CUDA is not
available): a warm-up, then as many multiplications as fit in a few seconds, each batch
closed by ``torch.cuda.synchronize()`` so the clock measures finished work (CUDA runs kernels
asynchronously: https://pytorch.org/docs/stable/notes/cuda.html#asynchronous-execution).
TFLOP/s = 2 n³ x iterations / seconds / 10¹² (an n x n matmul is n³ multiply-adds).

float32 is measured with PyTorch's defaults, as the live test's matmul burst runs it
(probes/train_test.py), so the two compare: it is labelled ``tf32`` when
``torch.backends.cuda.matmul.allow_tf32`` lets float32 matmuls use TF32, as the probe labels it.

Usage: ``python matmul_peak.py OUT.json [--seconds S] [--size N]``; exit 0 measured, 1 not.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from types import ModuleType
from typing import Any

#: The live test's matmul size on the GPU (probes/train_test.py, ``matmul_size``): the same n.
GPU_SIZE = 8192
#: A size a CPU finishes in well under a second per multiplication.
CPU_SIZE = 1024
SMALLEST = 512


def _measure(torch: ModuleType, device: str, dtype_name: str, size: int, seconds: float) -> dict[str, Any]:
    dtype = getattr(torch, dtype_name)
    cuda = device == "cuda"

    def sync() -> None:
        if cuda:
            torch.cuda.synchronize()

    while True:
        try:
            a = torch.randn(size, size, device=device, dtype=dtype)
            b = torch.randn(size, size, device=device, dtype=dtype)
            c = torch.empty(size, size, device=device, dtype=dtype)
            for _ in range(3 if cuda else 1):  # warm-up: cuBLAS picks its kernels, clocks rise
                torch.mm(a, b, out=c)
            sync()
            break
        except RuntimeError as error:  # out of memory: half the size
            if "out of memory" not in str(error).lower() or size <= SMALLEST:
                raise
            size //= 2
            if cuda:
                torch.cuda.empty_cache()
    batch = 10 if cuda else 1
    iterations = 0
    began = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        for _ in range(batch):
            torch.mm(a, b, out=c)
        sync()
        iterations += batch
        elapsed = time.perf_counter() - began
    tflops = 2.0 * size**3 * iterations / elapsed / 1e12
    label = dtype_name
    if dtype_name == "float32" and cuda and bool(torch.backends.cuda.matmul.allow_tf32):
        label = "tf32"
    return {
        "dtype": label,
        "size": size,
        "iterations": iterations,
        "seconds": round(elapsed, 4),
        "tflops": float(f"{tflops:.4g}"),
    }


def main(argv: list[str]) -> int:
    """Measure, write the JSON file, print it."""
    parser = argparse.ArgumentParser(prog="matmul_peak.py")
    parser.add_argument("out")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--size", type=int, default=0, help="default: 8192 on a GPU, 1024 on the CPU")
    args = parser.parse_args(argv)
    import torch  # noqa: PLC0415 - the kit runs this file only where torch is

    cuda = bool(torch.cuda.is_available())
    device = "cuda" if cuda else "cpu"
    size = args.size or (GPU_SIZE if cuda else CPU_SIZE)
    results = []
    errors = {}
    for dtype_name in ("bfloat16", "float32"):
        try:
            results.append(_measure(torch, device, dtype_name, size, args.seconds))
        except RuntimeError as error:  # e.g. bfloat16 not supported on this device
            errors[dtype_name] = str(error).splitlines()[0][:300]
    document = {
        "device": device,
        "device_name": torch.cuda.get_device_name(0) if cuda else "cpu",
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "allow_tf32": bool(torch.backends.cuda.matmul.allow_tf32),
        "seconds_per_dtype": args.seconds,
        "results": results,
        "peak_tflops": {item["dtype"]: item["tflops"] for item in results},
        "errors": errors,
    }
    text = json.dumps(document, indent=1)
    with open(args.out, "w", encoding="utf-8") as stream:  # noqa: PTH123 - one file, plain
        stream.write(text + "\n")
    print(text)
    return 0 if any(item["dtype"] in {"float32", "tf32"} for item in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
