"""Environment backends: uv and pip (venv), and the conda family, behind one interface."""
