// Package signer holds ed25519 signing keys for Canton external parties:
// generating and importing them, their Canton fingerprint, signing a
// prepared-transaction hash, and the encrypted key file they live in.
//
// # Keys
//
// A Key is an RFC 8032 ed25519 private key, identified by its 32-byte seed.
// It can be made from:
//
//   - a 32-byte seed (FromSeed);
//   - a 64-byte NaCl secret key, seed ‖ public key, the form libsodium,
//     tweetnacl and the Canton TypeScript wallet SDK use (FromNaClSecret; the
//     public half must match the seed);
//   - a PKCS#8 "PRIVATE KEY" PEM block, what `openssl genpkey -algorithm
//     ed25519` writes (ParsePKCS8PEM).
//
// ParsePrivate takes any of these as text: a PEM block, or the seed or NaCl
// secret in hex (text of hex digits only, optionally after 0x) or else
// base64 (standard or URL alphabet, padded or not). ParsePublicKey takes the raw 32-byte public key in hex or
// base64, a DER SubjectPublicKeyInfo in base64 or hex, or a "PUBLIC KEY" PEM
// block. The ed25519 SubjectPublicKeyInfo is the fixed 12-byte prefix
// 30 2a 30 05 06 03 2b 65 70 03 21 00 followed by the raw key.
//
// A Key never prints its secret: String, Format (every fmt verb), GoString
// and LogValue show only its fingerprint, and no error of this package quotes
// key material it was given.
//
// # Fingerprint
//
// Canton names a public key by its fingerprint, the signedBy of a signature
// and the part after "::" of a party id whose namespace key it is:
//
//	fingerprint = "1220" ‖ lower-hex(SHA-256(00 00 00 0C ‖ raw 32-byte public key))
//
// 00 00 00 0C is Canton's hash purpose for key fingerprints (12, big-endian
// int32) and 12 20 the multihash header for a 32-byte SHA-256. For ed25519
// the hashed data is the raw key even when the key is registered with Canton
// as a SubjectPublicKeyInfo.
//
// # Signatures
//
// Key.SignHash signs the 32 bytes of a prepared-transaction hash with pure
// ed25519 (no pre-hashing) and returns a Signature carrying the fields of
// Canton's JSON API: format SIGNATURE_FORMAT_CONCAT, the 64-byte signature
// R ‖ S (base64 in JSON), signedBy the fingerprint, signingAlgorithmSpec
// SIGNING_ALGORITHM_SPEC_ED25519. VerifyHash checks one.
//
// # Key files
//
// A key file is one JSON object, written with mode 0600:
//
//	{
//	  "format": "ledger-ed25519-key",
//	  "version": 1,
//	  "encrypted": true,
//	  "publicKey": base64(raw 32-byte public key),
//	  "fingerprint": "1220…",
//	  "kdf": {"name": "scrypt", "N": 32768, "r": 8, "p": 1, "salt": base64(16 bytes)},
//	  "cipher": "xchacha20poly1305",
//	  "nonce": base64(24 bytes),
//	  "ciphertext": base64(48 bytes)
//	}
//
// base64 is the standard padded alphabet. The 32-byte file key is
// scrypt(passphrase, salt, N, r, p); the ciphertext is XChaCha20-Poly1305
// (key, nonce) over the 32-byte seed, with additional data
// "ledger-ed25519-key/v1" ‖ raw public key, so that a publicKey changed in
// the file fails decryption. publicKey and fingerprint are in the clear so
// that a key can be shown without its passphrase; they are authenticated only
// when the key is decrypted, and fingerprint must always equal the
// fingerprint of publicKey. Readers accept N a power of two from 2^10 to
// 2^20, r from 1 to 32, p from 1 to 16, N·r at most 2^21 (256 MiB of
// memory) and N·r·p at most 2^22, so that a crafted file cannot exhaust
// the machine; writers use N = 2^15, r = 8, p = 1.
//
// With "encrypted": false (for tests only) the kdf, cipher, nonce and
// ciphertext fields are absent and "seed" holds base64(32-byte seed).
//
// A file whose version is larger than 1 is refused with a request to upgrade.
// On unix, a key file with any permission bit for group or others is
// refused, as ssh does, until `chmod 600` fixes it.
package signer
