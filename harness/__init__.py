"""harness: fault scenarios, cassettes and an API-validity oracle for Anthropic-API agents."""
