"""The exercises' grader: Python 3 standard library only (see exercises/INSTRUCTORS.md)."""
