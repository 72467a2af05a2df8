"""The support report: what it holds, redaction, and its layout as HTML and Markdown."""
