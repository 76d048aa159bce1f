"""The redactor and the scanner against planted fake secrets, and against real recordings."""
