"""Terminal renderers: typed results laid out as readable text (presentation only)."""
