"""The pure core: stdlib only. No Qt, numpy, audio or model libraries, no clock reads."""
