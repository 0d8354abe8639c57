"""Contests: rolls that answer one another, from opening to the verdict, with their panels and history."""
