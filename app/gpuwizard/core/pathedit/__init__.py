"""Windows PATH editing as pure functions: lossless lists, edits, diffs and reviews."""
