"""The wizard's session and long steps, without Qt."""
