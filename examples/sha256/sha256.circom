pragma circom 2.0.0;

include "circomlib/circuits/sha256/sha256.circom";

// SHA-256 of a 512-bit (64-byte) message: two compression blocks after
// padding, about 60k constraints, a bit-heavy witness. The 256 digest bits
// are the public outputs (nPublic = 256), msb first per byte as circomlib
// orders them.
component main = Sha256(512);
