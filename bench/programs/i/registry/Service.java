package registry;

import java.util.Objects;

/** An immutable registered service: its registry-assigned id, unique name and endpoint. */
public final class Service {
    private final long id;
    private final String name;
    private final String endpoint;

    public Service(long id, String name, String endpoint) {
        this.id = id;
        this.name = Objects.requireNonNull(name, "name");
        this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    }

    public long id() { return id; }

    public String name() { return name; }

    public String endpoint() { return endpoint; }

    @Override
    public String toString() {
        return name + "#" + id + "@" + endpoint;
    }
}
