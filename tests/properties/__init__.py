"""Property tests: hypothesis strategies against mini_agent through the harness."""
