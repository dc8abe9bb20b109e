package example;

import com.acldump.Acl;
import com.acldump.AclException;
import com.acldump.Binding;
import com.acldump.Model;
import com.acldump.Tensor;
import java.util.Map;

public class TypedExample {
  public static void main(String[] args) {
    try (Acl acl = Acl.init();
        Model model = Model.load("testdata/resnet_tiny.om");
        Tensor image = Tensor.of(new float[3 * 32 * 32], 1, 3, 32, 32)) {
      // One inference with typed tensors by name.
      Map<String, Tensor> outputs = model.run(Map.of("input", image));
      Tensor prob = outputs.get("prob");
      System.out.println(prob + " prob[0] = " + prob.toFloatArray()[0]);

      // A binding: tensors made once, filled in place; run() allocates no buffers.
      try (Binding binding = model.bind()) {
        binding.input("input").floatBuffer().put(0, 0.5f);
        binding.run();
        System.out.println("bound prob[0] = " + binding.output("prob").floatBuffer().get(0));
      }
    } catch (AclException e) {
      System.out.println("error " + e.getCode() + ": " + e.getAclMessage());
    }
  }
}
