pragma circom 2.0.0;

// c = a * b with one public output (c) and two private inputs.
// The smallest useful Groth16 circuit: 1 constraint, 4 wires.
template Multiplier() {
    signal input a;
    signal input b;
    signal output c;
    c <== a * b;
}

component main = Multiplier();
