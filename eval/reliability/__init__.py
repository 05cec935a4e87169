"""emem's reliability suite: hand-written conversations and questions about currentness, past
states, counts at a time, revoked plans, corrections, forget requests, entity confusion and
questions memory cannot answer, scored deterministically through the public API only."""
