"""The turn-taking state machine: a pure reducer."""
