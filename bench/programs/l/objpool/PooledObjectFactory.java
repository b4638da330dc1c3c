package objpool;

/** Life-cycle callbacks of pooled instances; must be callable from several threads at once. */
public interface PooledObjectFactory<T> {

    T create() throws Exception;

    boolean validate(T object);

    void destroy(T object);
}
