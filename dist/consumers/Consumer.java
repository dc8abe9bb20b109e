// A Java service's use of the release jar: run the bundled model once with a dump config and say
// what ran. Launched as `java -cp acldump-<version>.jar Consumer.java <model.om> <acl.json>`.
import com.acldump.Acl;
import com.acldump.DumpSession;
import com.acldump.Model;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

public class Consumer {
  public static void main(String[] args) {
    try (Acl acl = Acl.init();
        DumpSession dump = DumpSession.start(args[1]);
        Model model = Model.load(args[0])) {
      ByteBuffer image = ByteBuffer.allocate(3 * 32 * 32 * 4).order(ByteOrder.nativeOrder());
      ByteBuffer[] outputs = model.run(image);
      float sum = 0;
      for (int i = 0; i < 10; ++i) sum += outputs[1].getFloat(i * 4);
      System.out.printf("version %s, prob sums to %.3f%n", Acl.version(), sum);
    }
  }
}
