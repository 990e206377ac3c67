"""The runtime: stage workers on their threads and the controller on the GUI thread."""
