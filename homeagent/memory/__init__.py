"""Memory: working context (L1), documents (L2), the graph (L3), the text log."""
