package demoapp.proxied;

import demoapp.Console;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;

/**
 * Calls {@link Tools#lookup} through generated-looking subclasses of the bean, as a Quarkus or Hibernate application's
 * callers do: ArC's client proxy ({@code Tools_ClientProxy}, defined here from its class file with the ACC_SYNTHETIC flag
 * ArC's Gizmo sets, so the JVM sees what it sees in a Quarkus app), Hibernate's proxy (a plain subclass), and the bean
 * itself. Session s1 goes through the client proxy, s2 through the Hibernate proxy, s3 to the bean. Knows nothing of
 * tracegate.
 */
public final class ProxiedApp {

    public static void main(String[] args) throws Exception {
        Tools bean = new Tools();
        Class<?> clientProxy = define("demoapp.proxied.Tools_ClientProxy");
        Tools viaClientProxy = (Tools) clientProxy.getConstructor(Tools.class).newInstance(bean);
        Tools viaHibernate = (Tools) Class.forName("demoapp.proxied.Tools$HibernateProxy$x1").getConstructor().newInstance();
        Console.line("SYNTHETIC " + clientProxy.getName() + " " + clientProxy.isSynthetic());
        for (Object[] call : new Object[][] {{viaClientProxy, "s1", "ada"}, {viaHibernate, "s2", "bob"}, {bean, "s3", "cy"}}) {
            try {
                Console.line("RESULT " + call[1] + ": " + ((Tools) call[0]).lookup((String) call[1], (String) call[2]));
            } catch (RuntimeException e) {
                Console.exception(e);
            }
        }
    }

    /** Defines the named class of this package from its class file, marked ACC_SYNTHETIC (0x1000), in this class's loader. */
    private static Class<?> define(String name) throws IOException, IllegalAccessException {
        byte[] bytes;
        try (InputStream in = ProxiedApp.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
            if (in == null) throw new IOException("no class file for " + name);
            bytes = in.readAllBytes();
        }
        int at = accessFlagsOffset(bytes);
        int flags = ((bytes[at] & 0xff) << 8 | (bytes[at + 1] & 0xff)) | 0x1000;
        bytes[at] = (byte) (flags >> 8);
        bytes[at + 1] = (byte) flags;
        return MethodHandles.lookup().defineClass(bytes);
    }

    /** The offset of a class file's access_flags: right after its constant pool (JVMS 4.1, 4.4). */
    private static int accessFlagsOffset(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(bytes));
        in.skipBytes(8);   // magic, minor, major
        int count = in.readUnsignedShort();
        int read = 10;   // the offset after magic, versions and the pool's count
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            int size = switch (tag) {
                case 1 -> in.readUnsignedShort();   // Utf8: a u2 length (read here), then that many bytes
                case 3, 4, 9, 10, 11, 12, 17, 18 -> 4;
                case 5, 6 -> 8;
                case 7, 8, 16, 19, 20 -> 2;
                case 15 -> 3;
                default -> throw new IOException("constant pool tag " + tag);
            };
            read += 1 + (tag == 1 ? 2 : 0) + size;
            in.skipBytes(size);
            if (tag == 5 || tag == 6) i++;   // a long or a double takes two entries
        }
        return read;
    }
}
