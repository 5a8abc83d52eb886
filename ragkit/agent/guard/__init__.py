"""The guarded run: guardrails in the loop, the tool policy's decision step, human approval, coherence
checks, budgets and the audit log."""
