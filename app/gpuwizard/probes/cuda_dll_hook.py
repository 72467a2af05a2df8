r"""Make the NVIDIA wheels' DLL folders visible to every start of this environment's Python (Windows).

Not a probe the wizard runs: gpuwizard copies this file into a venv's ``site-packages`` as
``_gpuwizard_cuda_dlls.py``, beside ``_gpuwizard_cuda_dlls.pth``, whose one line
``import _gpuwizard_cuda_dlls`` the ``site`` module runs at every start of the interpreter
("Lines starting with import (followed by space or tab) are executed", docs.python.org/3/library/
site.html), activated or not: an IDE, Jupyter or a scheduled task that starts
``Scripts\python.exe`` directly gets the folders too. Only ``python -S`` skips it. Like the
probes it keeps to the standard library and Python 3.7 syntax: it runs inside the environment.

TensorFlow 2.10 and older load ``cudart64_110.dll``, cuDNN and the CUDA math libraries by bare
name (``tsl/platform/default/dso_loader.cc``) with ``LoadLibrary``'s standard search order, which
reads the PATH of the process (Microsoft Learn, "Dynamic-link library search order"), and so
does cuDNN when it loads its sub-libraries. So the folders go to the front of this process's
PATH (``os.environ`` changes the process environment that ``LoadLibrary`` reads; children inherit
it). They are also given to ``os.add_dll_directory``, which covers loads that use
``LOAD_LIBRARY_SEARCH_USER_DIRS`` instead of PATH (``ctypes`` since Python 3.8, extension modules;
docs.python.org/3/library/os.html#os.add_dll_directory). No machine-wide PATH changes.

It never raises: a hook that failed must not stop Python from starting. ``FOLDERS`` says what it
added (the environment report reads it), ``PROBLEM`` why it added nothing, if it failed.
"""

# It runs at every start of the environment's interpreter, where os.path is loaded already and
# importing pathlib would add to every start: hence os.path here.
# ruff: noqa: PTH100, PTH112, PTH118, PTH120, PTH208

import os

#: The folders put on the DLL search path, in order.
FOLDERS = []  # type: list
#: Why nothing was added, when something went wrong; None otherwise.
PROBLEM = None  # type: object
# os.add_dll_directory's handles: closing one would take its folder away again.
_HANDLES = []  # type: list


def wheel_folders(site_packages: str) -> "list":
    r"""The ``nvidia\*\bin`` folders the NVIDIA wheels installed in ``site_packages``, sorted."""
    root = os.path.join(site_packages, "nvidia")
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    found = []
    for name in names:
        folder = os.path.join(root, name, "bin")
        if os.path.isdir(folder):
            found.append(folder)
    return found


def path_with_folders_first(path: str, folders: "list") -> str:
    """``path`` with ``folders`` at its front, each once (a child process inherits them already)."""

    def key(entry: str) -> str:
        return os.path.normcase(os.path.normpath(entry.strip().strip('"')))

    ours = {key(folder) for folder in folders}
    rest = [entry for entry in path.split(os.pathsep) if entry and key(entry) not in ours]
    return os.pathsep.join(list(folders) + rest)


def install() -> None:
    """Put the folders on this process's DLL search path (Windows only; elsewhere nothing)."""
    global PROBLEM  # noqa: PLW0603 - the module's state is what the environment report reads
    if os.name != "nt":
        return
    try:
        folders = wheel_folders(os.path.dirname(os.path.abspath(__file__)))
        if not folders:
            return
        os.environ["PATH"] = path_with_folders_first(os.environ.get("PATH", ""), folders)
        add = getattr(os, "add_dll_directory", None)  # Python 3.8+
        for folder in folders:
            if add is not None:
                _HANDLES.append(add(folder))
        FOLDERS[:] = folders
    except Exception as error:  # noqa: BLE001 - never stop the interpreter from starting
        PROBLEM = "%s: %s" % (type(error).__name__, error)


install()
