// Package vectors reads the test vectors kept in testdata/vectors: prepared
// transactions that real Canton nodes made, one per line of a TSV file,
// base64 in the first column.
package vectors

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"os"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/ledger-cli/ledger/proto/damlpb"
)

// LedgerHQTransfer is the path, from the repository's root, of a real
// Canton Coin transfer Canton prepared (the LedgerHQ fixture): five input
// contracts with their event blobs (ca10 and ca11 ids) and four contracts
// created with local ids.
const LedgerHQTransfer = "testdata/vectors/npm-peers/golden-ledgerhq-v2.tsv"

// FirstPrepared reads the prepared transaction on the first line of the TSV
// file at path.
func FirstPrepared(path string) (*damlpb.PreparedTransaction, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, fmt.Errorf("%s: empty vector file", path)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Split(sc.Text(), "\t")[0])
	if err != nil {
		return nil, fmt.Errorf("%s: the first column is not base64: %w", path, err)
	}
	var pt damlpb.PreparedTransaction
	if err := proto.Unmarshal(raw, &pt); err != nil {
		return nil, fmt.Errorf("%s: not a PreparedTransaction: %w", path, err)
	}
	return &pt, nil
}
