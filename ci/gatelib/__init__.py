"""The per-patch gate, by concern (see ci/gate.py for the overview)."""
