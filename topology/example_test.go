package topology_test

import (
	"crypto/ed25519"
	"fmt"

	"github.com/ledger-cli/ledger/topology"
)

func ExampleGenerateExternalParty() {
	pub := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)).Public().(ed25519.PublicKey)
	o, err := topology.GenerateExternalParty(topology.OnboardingRequest{
		PartyHint:      "alice",
		PublicKey:      pub,
		ParticipantUID: "participant1::1220aaaa",
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(o.Transactions), "transaction(s), multi-hash of", len(o.MultiHash), "bytes")

	tx, _ := topology.Decode(o.Transactions[0])
	p := tx.Mapping.PartyToParticipant
	fmt.Println(tx.Operation, tx.Serial, tx.Mapping.Kind, p.Participants[0].Permission, p.SigningKeys[0].Usage)

	id, err := topology.CheckExternalPartyOnboarding(o.Transactions, pub, "alice")
	fmt.Println(id == o.PartyID, err)
	// Output:
	// 1 transaction(s), multi-hash of 34 bytes
	// ADD_REPLACE 1 party_to_participant CONFIRMATION [NAMESPACE PROOF_OF_OWNERSHIP PROTOCOL]
	// true <nil>
}
