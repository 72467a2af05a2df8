"""The plan as files for other targets: requirements, environment.yml, Dockerfile."""
