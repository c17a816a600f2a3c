package ledger

// Party is the node's record of a party.
type Party struct {
	ID                 string
	IsLocal            bool
	Annotations        map[string]string // never nil when read
	ResourceVersion    int64             // bumped by every annotations update
	IdentityProviderID string
	// External parties sign their own transactions with SigningKeys.
	External         bool
	SigningThreshold int // signatures an external party's transaction needs
}

// SigningKey is a public key an external party signs with.
type SigningKey struct {
	Fingerprint string // e.g. "1220…"
	PublicKey   []byte // raw 32-byte ed25519 public key
}

// PartyAllocation is what allocating a party stores.
type PartyAllocation struct {
	Party Party
	// SigningKeys (external parties only; their presence makes the party external).
	SigningKeys []SigningKey
	// Topology holds the onboarding topology transactions, in order, as bytes.
	Topology [][]byte
	// GrantActAsTo, when set, names a user that gets CanActAs on the new
	// party in the same transaction (ErrNotFound when the user is unknown).
	GrantActAsTo string
}

// PartyQuery selects a page of parties in id order.
type PartyQuery struct {
	After  string // page token: the last id of the previous page ("" = first page)
	Limit  int    // page size (default 1000)
	Prefix string // keep only ids starting with Prefix
	// IdentityProviderID, when set, keeps only parties of that identity provider.
	IdentityProviderID *string
}
