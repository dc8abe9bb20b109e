package acldump_test

import (
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	acldump "github.com/acldump/acldump-go"
)

func Example() {
	work, _ := os.MkdirTemp("", "acldump")
	defer os.RemoveAll(work)
	config := filepath.Join(work, "acl.json")
	os.WriteFile(config, []byte(`{"dump": {"dump_path": "`+work+
		`", "dump_list": [{"model_name": "resnet_tiny"}]}}`), 0o644)

	if err := acldump.Init(""); err != nil {
		log.Fatal(err)
	}
	defer acldump.Finalize()
	dump, err := acldump.StartDump(config)
	if err != nil {
		log.Fatal(err)
	}
	model, err := acldump.LoadModel("testdata/resnet_tiny.om")
	if err != nil {
		log.Fatal(err)
	}
	outputs, err := model.Run(make([]byte, 3*32*32*4)) // one float32 [1,3,32,32] input
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(model.Outputs[1].Name, model.Outputs[1].Dims, len(outputs[1]), "bytes")
	model.Close()
	dump.Close() // every dump file is written when it returns

	_, err = acldump.StartDump(filepath.Join(work, "missing.json"))
	var aclErr *acldump.Error
	if errors.As(err, &aclErr) {
		fmt.Println("error", aclErr.Code)
	}
	// Output:
	// prob [1 10] 40 bytes
	// error 100003
}
