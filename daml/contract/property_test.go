package contract

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ledger-cli/ledger/daml/lf"
	"github.com/ledger-cli/ledger/daml/typed"
)

// blobRegions returns the offsets in blob of the create argument's bytes,
// the authentication data's and the created_at's.
func blobRegions(t *testing.T, blob []byte) (arg, auth, createdAt [2]int) {
	t.Helper()
	payloadAt := -1
	for off := 0; off < len(blob); {
		num, typ, n := protowire.ConsumeTag(blob[off:])
		m := protowire.ConsumeFieldValue(num, typ, blob[off+n:])
		if num == fVersionedPayload {
			_, l := protowire.ConsumeVarint(blob[off+n:])
			payloadAt = off + n + l
		}
		off += n + m
	}
	if payloadAt < 0 {
		t.Fatal("no payload")
	}
	p := blob[payloadAt:]
	for off := 0; off < len(p); {
		num, typ, n := protowire.ConsumeTag(p[off:])
		m := protowire.ConsumeFieldValue(num, typ, p[off+n:])
		start, end := payloadAt+off+n, payloadAt+off+n+m
		if typ == protowire.BytesType {
			_, l := protowire.ConsumeVarint(p[off+n:])
			start += l
		}
		switch num {
		case fCreateArg:
			arg = [2]int{start, end}
		case fAuthenticationData:
			auth = [2]int{start, end}
		case fCreatedAt:
			createdAt = [2]int{start, end}
		}
		off += n + m
	}
	return
}

// TestFlippedBytesFailAuthentication flips every byte of the create
// argument, the authentication data (salt) and created_at of real blobs
// (the golden transfer's ca10/ca11 inputs, Canton's ca12 FeaturedAppRight,
// suffixed Ping contracts) three ways (xor 0x01, 0x80, 0xff): each mutant
// must fail to decode or fail authentication.
func TestFlippedBytesFailAuthentication(t *testing.T) {
	type subject struct {
		name  string
		blob  []byte
		types *typed.Env
		pkg   lf.PackageID
	}
	var subjects []subject
	env := sharedTypes(t)
	for _, b := range goldenBlobs(t) {
		c, err := DecodeBlob(b)
		if err != nil {
			t.Fatal(err)
		}
		types := env
		if env.Package(lf.PackageID(c.TemplateID.PackageID)) == nil {
			t.Logf("%s: package %s not among the shared DARs; hashed without types", c.TemplateID.EntityName, c.TemplateID.PackageID)
			types = nil
		}
		subjects = append(subjects, subject{"golden-" + c.TemplateID.EntityName, b, types, ""})
	}
	for _, cb := range cantonBlobs(t) {
		subjects = append(subjects, subject{cb.name, cb.blob, env, cb.pkg})
	}
	_, ping := pingTypes(t)
	for _, v := range []Version{V10, V11, V12} {
		out, err := NewSuffixer(v, nil).Suffix(pingContract(t, "ping-flip", 3), Salt{9})
		if err != nil {
			t.Fatal(err)
		}
		b, err := EncodeBlob(out)
		if err != nil {
			t.Fatal(err)
		}
		subjects = append(subjects, subject{"ping-" + v.String(), b, ping, ""})
	}
	mutants := 0
	for _, s := range subjects {
		if _, err := AuthenticateBlob(s.blob, s.types, s.pkg); err != nil {
			t.Fatalf("%s: the unmutated blob fails: %v", s.name, err)
		}
		arg, auth, createdAt := blobRegions(t, s.blob)
		if arg[1] == 0 || auth[1]-auth[0] != 42 || createdAt[1]-createdAt[0] != 8 {
			t.Fatalf("%s: regions arg %v auth %v createdAt %v", s.name, arg, auth, createdAt)
		}
		for _, r := range [][2]int{arg, auth, createdAt} {
			for i := r[0]; i < r[1]; i++ {
				for _, mask := range []byte{0x01, 0x80, 0xff} {
					m := append([]byte(nil), s.blob...)
					m[i] ^= mask
					mutants++
					if _, err := AuthenticateBlob(m, s.types, s.pkg); err == nil {
						t.Errorf("%s: byte %d xor %#x still authenticates", s.name, i, mask)
					}
				}
			}
		}
	}
	t.Logf("%d mutants of %d blobs, all refused", mutants, len(subjects))
}
