//! Growing an ELM or a BLS until the validation error stops improving.
