"""Diagnosis of Python versions without wheels and TensorFlow's Windows DLL failure (issue 22).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, which values they read and how the cause is chosen.
"""

from __future__ import annotations

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from harness.recorded_logs import only, recorded

# --- Python versions without wheels ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "python", "available", "suggested"),
    [
        (
            "python-version-no-wheels_uv-run-tensorflow-cp313-wrapped-lines_uv-13262.txt",
            "3.13",
            "3.9, 3.10, 3.11, 3.12",
            "3.12",
        ),
        (
            "python-version-no-wheels_uv-sync-cpython-3.14-torch-2.8.0-cp314_kev-34.txt",
            "3.14",
            "3.12, 3.13",
            "3.13",
        ),
        (
            "python-version-no-wheels_uv-pip-torch-1.12.0-cu113-cp311_uv-8344.txt",
            "3.11",
            "3.7, 3.8, 3.9, 3.10",
            "3.10",
        ),
        (
            "python-version-no-wheels_conda-unsatisfiable-tf1.13.1-python3.8.5_poni-5.txt",
            "3.8",
            "3.6, 3.7",
            "3.7",
        ),
    ],
)
def test_the_python_to_use_is_the_newest_one_the_log_lists(
    name: str, python: str, available: str, suggested: str
):
    finding = only(recorded(name))
    assert finding.code == "PYTHON_VERSION_NO_WHEELS" and finding.severity == "error"
    assert finding.params["variant"] == "listed"
    assert (finding.params["python"], finding.params["available"], finding.params["suggested"]) == (
        python,
        available,
        suggested,
    )
    assert f"Python {python}" in finding.message
    assert f"uv venv --python {suggested}" in finding.hint and f"python={suggested}" in finding.hint


def test_the_python_version_explains_the_generic_no_matching_distribution():
    # uv's "has no wheels" alone gave NO_MATCHING_DISTRIBUTION before; the Python is the cause.
    uv = recorded("python-version-no-wheels_uv-pip-torch-1.12.0-cu113-cp311_uv-8344.txt")
    assert [f.code for f in diagnose(uv)] == ["PYTHON_VERSION_NO_WHEELS"]
    # Other causes of "no wheels" keep the generic finding.
    assert [
        f.code
        for f in diagnose(recorded("no-matching-distribution_uv-no-wheels-python-implementation_uv-4303.txt"))
    ] == ["NO_MATCHING_DISTRIBUTION"]


def test_pip_counts_only_when_the_python_it_ran_is_outside_the_ranges_it_printed():
    pip = recorded("python-version-no-wheels_pipenv-py3.13-tensorflow-none_tensorflow-91776_partial.txt")
    finding = only(pip)
    assert finding.code == "PYTHON_VERSION_NO_WHEELS" and "variant" not in finding.params
    assert finding.params["python"] == "3.13" and finding.params["package"] == "tensorflow"
    assert "Python 3.12 works with every PyTorch from 2.2 and TensorFlow 2.16 to 2.21" in finding.hint
    # Without the Python it ran (the path named python3.13), pip's words do not prove the cause.
    unknown = pip.replace("/python3.13/", "/")
    assert [f.code for f in diagnose(unknown)] == ["NO_MATCHING_DISTRIBUTION"]
    # A Python inside every printed range: the versions were ignored for other packages.
    inside = pip.replace("/python3.13/", "/python3.10/")
    assert [f.code for f in diagnose(inside)] == ["NO_MATCHING_DISTRIBUTION"]
    # Versions were left to choose from: not a Python problem either.
    some_left = pip.replace("(from versions: none)", "(from versions: 2.16.1)")
    assert [f.code for f in diagnose(some_left)] == ["NO_MATCHING_DISTRIBUTION"]


# --- TensorFlow's DLL load failure on Windows ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "variant", "error"),
    [
        ("tf-dll-load-failed_tf-venv-init-failed-0x45A-hint_tensorflow-119165_partial.txt", "avx", "1114"),
        ("tf-dll-load-failed_tf2.18-py3.11-jupyter-init-failed_tensorflow-91321_partial.txt", "avx", "1114"),
        ("tf-dll-load-failed_chinese-init-failed-pyinstaller_ossas-chatbot-22_partial.txt", "avx", "1114"),
        ("tf-dll-load-failed_py3.8-module-not-found-jupyter_tensorflow-7623_partial.txt", "msvc", "126"),
        ("tf-dll-load-failed_chinese-module-not-found-anaconda_tf-models-2083_partial.txt", "msvc", "126"),
        ("tf-dll-load-failed_german-module-not-found-tf0.12_tensorflow-5949_partial.txt", "msvc", "126"),
        ("tf-dll-load-failed_spanish-module-not-found-anaconda_tensorflow-16861_partial.txt", "msvc", "126"),
        (
            "tf-dll-load-failed_tf-gpu-renamed-cudart64_90-module-not-found_tensorflow-10994.txt",
            "cuda",
            "126",
        ),
    ],
)
def test_the_windows_error_is_read_in_any_language_and_weighed(name: str, variant: str, error: str):
    finding = only(recorded(name))
    assert finding.code == "TF_DLL_LOAD_FAILED" and finding.severity == "error"
    assert finding.params["variant"] == variant and finding.params["windows_error"] == error


def test_each_cause_gets_its_own_fix():
    avx = only(recorded("tf-dll-load-failed_tf-venv-init-failed-0x45A-hint_tensorflow-119165_partial.txt"))
    assert "AVX" in avx.message and "Coreinfo" in avx.hint and "vc_redist.x64.exe" in avx.hint
    msvc = only(recorded("tf-dll-load-failed_py3.8-module-not-found-jupyter_tensorflow-7623_partial.txt"))
    assert "Visual C++" in msvc.message and "vc_redist.x64.exe" in msvc.hint and "msvcp140_1.dll" in msvc.hint
    cuda = only(
        recorded("tf-dll-load-failed_tf-gpu-renamed-cudart64_90-module-not-found_tensorflow-10994.txt")
    )
    assert cuda.params["library"] == "cudart64_90.dll" and "cudart64_90.dll" in cuda.message
    assert "renamed DLL" in cuda.hint and "2.10" in cuda.hint


LINE = "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: {}"


@pytest.mark.parametrize(
    ("text", "variant"),
    [
        # Spanish error 1114, as in the title of tensorflow/tensorflow#73525.
        (
            LINE.format("Error en una rutina de inicialización de biblioteca de vínculos dinámicos (DLL)."),
            "avx",
        ),
        # CONSTRUCTED: French error 126 (the text of the real log in huggingface/diffusers#5247).
        (LINE.format("Le module spécifié est introuvable."), "msvc"),
        # CONSTRUCTED: the Visual C++ runtime named beside it wins over the number.
        (LINE.format("xyz") + "\nCould not find 'msvcp140_1.dll'", "msvc"),
        # CONSTRUCTED: a 32-bit Python's banner.
        (
            "Python 3.7.4 [MSC v.1916 32 bit (Intel)] on win32\n"
            + LINE.format("%1 is not a valid Win32 application."),
            "python",
        ),
        # CONSTRUCTED: the Store's sandboxed Python.
        (
            "C:\\Users\\u\\AppData\\Local\\Packages\\PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0\\LocalCache\n"
            + LINE.format("Zugriff verweigert"),
            "store",
        ),
        # CONSTRUCTED: a text this module does not know, and no other clue.
        (LINE.format("Zugriff verweigert"), "unknown"),
    ],
)
def test_the_cause_is_chosen_from_the_whole_log(text: str, variant: str):
    finding = next(f for f in diagnose(text) if f.code == "TF_DLL_LOAD_FAILED")
    assert finding.params["variant"] == variant


def test_error_numbers_count_where_the_text_is_unknown():
    # CONSTRUCTED: Windows' number in hex, as the loader of tensorflow/tensorflow#119165 prints it.
    text = LINE.format("Ошибка") + "\nINITIALIZATION FAILED (0x45A)"
    assert only(text).params["variant"] == "avx"


def test_the_cuda_dll_warnings_of_tensorflow_2_do_not_make_it_a_cuda_failure():
    # CONSTRUCTED: TensorFlow 2.1+ loads CUDA lazily: a missing cudart is a warning (its own
    # finding), not the cause of the import failure.
    text = (
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
        + LINE.format("The specified module could not be found.")
    )
    found = {f.code: f for f in diagnose(text)}
    assert set(found) == {"DLL_NOT_FOUND", "TF_DLL_LOAD_FAILED"}
    assert found["TF_DLL_LOAD_FAILED"].params["variant"] == "msvc"


def test_other_dll_failures_are_not_tensorflow():
    # CONSTRUCTED: the old form without TensorFlow around it is another module's failure.
    assert diagnose("ImportError: DLL load failed: The specified module could not be found.") == []
    assert (
        diagnose(
            "ImportError: DLL load failed while importing _ssl: The specified module could not be found."
        )
        == []
    )
