"""Creating, listing and removing the environments the wizard makes."""
