"""Running the live training test in an environment."""
