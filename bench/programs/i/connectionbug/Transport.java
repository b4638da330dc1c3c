package connectionbug;

import java.io.IOException;

/** The byte channel under a {@link Connection}; called by one thread at a time. */
public interface Transport {
    void open() throws IOException;

    void write(byte[] bytes) throws IOException;

    void close();
}
