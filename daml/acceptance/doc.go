// Package acceptance runs the real applications of ../shared/dars on the
// interpreter, with an in-memory ledger: the token-standard token apps
// through their interfaces, Canton Coin (Amulet) from the DSO's bootstrap
// to a transfer, the JSON API test DAR's contract keys. Each test follows
// what the .daml sources inside the DARs say the choices do. The package
// holds only tests.
package acceptance
