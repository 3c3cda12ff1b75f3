pragma circom 2.0.0;

include "circomlib/circuits/poseidon.circom";

// A chain of N Poseidon(2) hashes: h_0 = Poseidon(x, y),
// h_i = Poseidon(h_(i-1), y); out = h_(N-1). Public input y, public output
// out, private input x. Dense (non-binary) witness; about 240 constraints per
// hash. circomlib's Poseidon constants are BN254's: on bls12381 this still
// compiles and runs, but it is not a standard hash there.
template PoseidonChain(N) {
    signal input x;
    signal input y;
    signal output out;
    component h[N];
    for (var i = 0; i < N; i++) {
        h[i] = Poseidon(2);
        h[i].inputs[0] <== i == 0 ? x : h[i-1].out;
        h[i].inputs[1] <== y;
    }
    out <== h[N-1].out;
}

component main {public [y]} = PoseidonChain(4);
