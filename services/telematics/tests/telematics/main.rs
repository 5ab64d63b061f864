//! The device edge's tests: real frames, fuzzed input, terminals over TCP, one
//! module per subject, in one binary (CONTRIBUTING §2): each file directly
//! under `tests/` would be a binary of its own, linked with the whole crate.

mod support;

mod decoder_fuzz;
mod evidence;
mod real_frames;
mod terminal;
mod video;
