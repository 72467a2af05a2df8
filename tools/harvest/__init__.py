"""Harvesting compatibility facts from the published wheels (``python tools/compat_harvest.py``).

The modules, bottom up:

- ``net``: HTTP GETs with timeouts and retries, Range reads, and a count of the bytes that came in.
- ``remotezip``: a zip file read over HTTP Range requests (central directory, single members, and a
  streaming search through a compressed member), never the whole file.
- ``wheels``: what one wheel says (``torch/version.py``, METADATA, the ``-gencode`` flags of the CUDA
  library, TensorFlow's ``build_info.py``), read once and cached by the wheel's sha256.
- ``listings``: the wheels PyPI's JSON API and the PyTorch index list, and which to read.
- ``harvest``: the facts per minor release, gathered from those wheels.
- ``compare``: the disagreements between the facts and ``resources/compat``.
- ``update``: the facts written into the data files (``--write``).
- ``cli``: the command line.
"""
