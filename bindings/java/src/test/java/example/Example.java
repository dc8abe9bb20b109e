package example;

import com.acldump.Acl;
import com.acldump.AclException;
import com.acldump.DumpSession;
import com.acldump.Model;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

public class Example {
  public static void main(String[] args) throws Exception {
    Path work = Files.createTempDirectory("acldump");
    Path config = work.resolve("acl.json");
    Files.writeString(config, "{\"dump\": {\"dump_path\": \"" + work
        + "\", \"dump_list\": [{\"model_name\": \"resnet_tiny\"}]}}");

    try (Acl acl = Acl.init();
        DumpSession dump = DumpSession.start(config.toString());
        Model model = Model.load("testdata/resnet_tiny.om")) {
      ByteBuffer image = ByteBuffer.allocate(3 * 32 * 32 * 4).order(ByteOrder.nativeOrder());
      ByteBuffer prob = model.run(image)[1];
      System.out.println("prob[0] = " + prob.getFloat(0));
    } catch (AclException e) {
      System.out.println("error " + e.getCode() + ": " + e.getAclMessage());
    }
  }
}
