package eval

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/ledger-cli/ledger/daml/archive"
	"github.com/ledger-cli/ledger/daml/lf"
)

// ParseType reads a type as --type gives it, in Daml's own spelling:
// builtins (Int, Int64, Text, Bool, Party, Date, Time or Timestamp, Unit,
// Decimal, Numeric 10, Optional Int, [Text], ContractId T, TextMap Int),
// applications and parentheses, and data types of the DAR as Module:Entity
// (its main package) or package:Module:Entity (a package name or id).
func ParseType(dar *archive.Dar, s string) (lf.Type, error) {
	p := &typeParser{dar: dar, toks: tokenizeType(s)}
	t, err := p.app()
	if err != nil {
		return nil, fmt.Errorf("type %q: %w", s, err)
	}
	if p.i < len(p.toks) {
		return nil, fmt.Errorf("type %q: unexpected %q", s, p.toks[p.i])
	}
	return t, nil
}

func tokenizeType(s string) []string {
	var toks []string
	cur := ""
	flush := func() {
		if cur != "" {
			toks = append(toks, cur)
			cur = ""
		}
	}
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			flush()
		case strings.ContainsRune("()[]", r):
			flush()
			toks = append(toks, string(r))
		default:
			cur += string(r)
		}
	}
	flush()
	return toks
}

type typeParser struct {
	dar  *archive.Dar
	toks []string
	i    int
}

func (p *typeParser) app() (lf.Type, error) {
	head, err := p.atom()
	if err != nil {
		return nil, err
	}
	for p.i < len(p.toks) && p.toks[p.i] != ")" && p.toks[p.i] != "]" {
		arg, err := p.atom()
		if err != nil {
			return nil, err
		}
		head = lf.TApp{Fun: head, Arg: arg}
	}
	return head, nil
}

var typeNames = map[string]lf.BuiltinType{
	"Int": lf.BuiltinInt64, "Int64": lf.BuiltinInt64, "Text": lf.BuiltinText, "Bool": lf.BuiltinBool,
	"Party": lf.BuiltinParty, "Date": lf.BuiltinDate, "Time": lf.BuiltinTimestamp, "Timestamp": lf.BuiltinTimestamp,
	"Unit": lf.BuiltinUnit, "Numeric": lf.BuiltinNumeric, "Optional": lf.BuiltinOptional, "List": lf.BuiltinList,
	"ContractId": lf.BuiltinContractID, "TextMap": lf.BuiltinTextMap, "Map": lf.BuiltinGenMap, "BigNumeric": lf.BuiltinBigNumeric,
}

func (p *typeParser) atom() (lf.Type, error) {
	if p.i >= len(p.toks) {
		return nil, fmt.Errorf("a type is missing at the end")
	}
	tok := p.toks[p.i]
	p.i++
	switch tok {
	case "(", "[":
		closing := map[string]string{"(": ")", "[": "]"}[tok]
		if tok == "(" && p.i < len(p.toks) && p.toks[p.i] == ")" {
			p.i++
			return lf.TBuiltin{Builtin: lf.BuiltinUnit}, nil
		}
		t, err := p.app()
		if err != nil {
			return nil, err
		}
		if p.i >= len(p.toks) || p.toks[p.i] != closing {
			return nil, fmt.Errorf("%q is not closed", tok)
		}
		p.i++
		if tok == "[" {
			return lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinList}, Arg: t}, nil
		}
		return t, nil
	case ")", "]":
		return nil, fmt.Errorf("unexpected %q", tok)
	}
	if n, err := strconv.Atoi(tok); err == nil {
		if n < 0 || n > 37 {
			return nil, fmt.Errorf("a Numeric scale is 0 to 37, not %d", n)
		}
		return lf.TNat{N: n}, nil
	}
	if tok == "Decimal" {
		return lf.TApp{Fun: lf.TBuiltin{Builtin: lf.BuiltinNumeric}, Arg: lf.TNat{N: 10}}, nil
	}
	if b, ok := typeNames[tok]; ok {
		return lf.TBuiltin{Builtin: b}, nil
	}
	return p.dataType(tok)
}

// dataType finds Module:Entity or package:Module:Entity in the DAR.
func (p *typeParser) dataType(ref string) (lf.Type, error) {
	parts := strings.Split(ref, ":")
	var pkg *lf.Package
	switch len(parts) {
	case 2:
		pkg = p.dar.MainPackage()
	case 3:
		for _, c := range p.dar.Packages {
			if string(c.ID) == parts[0] || c.Name == parts[0] {
				pkg = c
				break
			}
		}
		if pkg == nil {
			return nil, fmt.Errorf("the DAR has no package %q", parts[0])
		}
		parts = parts[1:]
	default:
		return nil, fmt.Errorf("%q is not a type: use a builtin (Int, Text, Decimal, Numeric 10, [Party], …) or Module:Entity of the DAR", ref)
	}
	mod := pkg.Module(parts[0])
	if mod == nil || mod.DataType(parts[1]) == nil {
		return nil, fmt.Errorf("package %s has no data type %s:%s", pkg.Name, parts[0], parts[1])
	}
	return lf.TCon{Con: lf.TypeConName{Package: pkg.ID, Module: lf.SplitDotted(parts[0]), Name: lf.SplitDotted(parts[1])}}, nil
}
