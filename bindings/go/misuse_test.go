package acldump_test

import (
	"encoding/json"
	"errors"
	"os"
	"runtime"
	"strings"
	"testing"

	acldump "github.com/acldump/acldump-go"
	"github.com/acldump/acldump-go/acl"
)

// misuseCase is a case of testdata/misuse_cases.json (its "_schema" says what each field means).
type misuseCase struct {
	Name   string `json:"name"`
	Action string `json:"action"`
	Before string `json:"before"`
	Args   struct {
		Inputs  json.RawMessage `json:"inputs"`
		ModelID uint32          `json:"model_id"`
	} `json:"args"`
	Expect struct {
		Code     int    `json:"code"`
		CodeName string `json:"code_name"`
		Message  string `json:"message"`
	} `json:"expect"`
	Source string `json:"source"`
}

type tensorSpec struct {
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
}

func readMisuseCases(t *testing.T) (model string, cases []misuseCase) {
	t.Helper()
	data, err := os.ReadFile("testdata/misuse_cases.json")
	must(t, err)
	var table struct {
		Schema []string     `json:"_schema"`
		Model  string       `json:"model"`
		Cases  []misuseCase `json:"cases"`
	}
	must(t, json.Unmarshal(data, &table))
	if len(table.Schema) == 0 || len(table.Cases) < 5 {
		t.Fatalf("the table has no schema or too few cases: %d", len(table.Cases))
	}
	return table.Model, table.Cases
}

// zeroTensor is the table's {"dtype", "shape"}: a tensor of zeros.
func zeroTensor(t *testing.T, spec tensorSpec) acldump.AnyTensor {
	t.Helper()
	var tensor acldump.AnyTensor
	var err error
	switch spec.DType {
	case "float32":
		tensor, err = acldump.NewEmptyTensor[float32](spec.Shape)
	case "int32":
		tensor, err = acldump.NewEmptyTensor[int32](spec.Shape)
	case "int64":
		tensor, err = acldump.NewEmptyTensor[int64](spec.Shape)
	case "uint8":
		tensor, err = acldump.NewEmptyTensor[uint8](spec.Shape)
	default:
		t.Fatalf("the runner has no tensors of %q", spec.DType)
	}
	must(t, err)
	return tensor
}

// runMisuse does the case's action on model and returns its error.
func runMisuse(t *testing.T, model *acldump.Model, c misuseCase) error {
	t.Helper()
	switch c.Action {
	case "run_positional":
		var specs []struct {
			Bytes int `json:"bytes"`
		}
		must(t, json.Unmarshal(c.Args.Inputs, &specs))
		inputs := make([][]byte, len(specs))
		for i, spec := range specs {
			inputs[i] = make([]byte, spec.Bytes)
		}
		_, err := model.Run(inputs...)
		return err
	case "run_named":
		var specs map[string]*tensorSpec
		must(t, json.Unmarshal(c.Args.Inputs, &specs))
		inputs := map[string]acldump.AnyTensor{}
		for name, spec := range specs {
			inputs[name] = nil // JSON null: a nil tensor
			if spec != nil {
				inputs[name] = zeroTensor(t, *spec)
			}
		}
		_, err := model.RunNamed(inputs)
		return err
	case "execute_model_id":
		// The raw layer: the message is thread-local in C.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		dataset := acl.AclmdlCreateDataset()
		defer acl.DeleteAclmdlDataset(dataset)
		code := acl.AclmdlExecute(uint(c.Args.ModelID), dataset, dataset)
		if code == acl.ACL_SUCCESS {
			return nil
		}
		return &acldump.Error{Code: code, Message: acl.AclGetRecentErrMsg()}
	}
	t.Fatalf("unknown action %q", c.Action)
	return nil
}

// Each misuse of testdata/misuse_cases.json fails with the table's code and message, as in the
// other languages (Java: MisuseTest).
func TestMisuseTable(t *testing.T) {
	path, cases := readMisuseCases(t)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			must(t, acldump.Init(""))
			defer acldump.Finalize()
			model, err := acldump.LoadModel(path)
			must(t, err)
			defer model.Close()
			switch c.Before {
			case "":
			case "close_model":
				must(t, model.Close())
			default:
				t.Fatalf("unknown before %q", c.Before)
			}
			err = runMisuse(t, model, c)
			var e *acldump.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want an *acldump.Error %d (%s)", err, c.Expect.Code,
					c.Expect.CodeName)
			}
			if e.Code != c.Expect.Code || !strings.Contains(e.Message, c.Expect.Message) {
				t.Errorf("got %v, want code %d (%s) and a message with %q", err, c.Expect.Code,
					c.Expect.CodeName, c.Expect.Message)
			}
			if !errors.Is(err, &acldump.Error{Code: c.Expect.Code}) {
				t.Errorf("errors.Is does not match %v against its code", err)
			}
		})
	}
}
