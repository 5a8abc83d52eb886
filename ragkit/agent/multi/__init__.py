"""Multi-agent runs: agent definitions, handoffs and ``AgentRunner``."""
