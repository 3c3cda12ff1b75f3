/* librapidsnark_g16: rapidsnark's prover and verifier C ABI over g16. */
#ifndef G16_RAPIDSNARK_H
#define G16_RAPIDSNARK_H
#include "rapidsnark/prover.h"
#include "rapidsnark/verifier.h"
#endif
