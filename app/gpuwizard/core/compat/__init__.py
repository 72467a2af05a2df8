"""Compatibility knowledge: the tables as typed data, the plan types and the recommender."""
