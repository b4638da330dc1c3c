package retryclientbug;

import java.io.IOException;

/** Sends one request over the wire; implementations must be usable from several threads. */
@FunctionalInterface
public interface Transport<Q, R> {

    /** @throws IOException on a transient failure that may succeed when retried */
    R send(Q request) throws IOException;
}
