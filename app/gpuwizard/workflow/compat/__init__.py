"""The compatibility data: bundled or refreshed, and the refresh itself."""
