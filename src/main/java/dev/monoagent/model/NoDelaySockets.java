package dev.monoagent.model;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * Plain sockets with Nagle's algorithm off, for the SDKs' OkHttp clients. OkHttp writes a request as one write per
 * 8 KiB buffer segment (headers, then each part of the body) and leaves {@code TCP_NODELAY} at the JDK's default
 * (off). With Nagle on, the last short write of any request over one segment waits until the server ACKs the
 * earlier ones, and a server on a reused connection delays that ACK (40 ms minimum on Linux) because it has nothing
 * to send until the body is complete: every agent turn, whose request carries the prompt, the tool schemas and the
 * history, paid that stall before the model saw it. curl, Go's net/http and {@code java.net.http} all turn Nagle
 * off; TLS sockets are layered on these, so remote providers get the same.
 */
final class NoDelaySockets extends SocketFactory {
    static final NoDelaySockets INSTANCE = new NoDelaySockets();

    private NoDelaySockets() {}

    private static Socket noDelay(Socket s) throws IOException {
        s.setTcpNoDelay(true);
        return s;
    }

    @Override
    public Socket createSocket() throws IOException {
        return noDelay(new Socket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return noDelay(new Socket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return noDelay(new Socket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return noDelay(new Socket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return noDelay(new Socket(address, port, localAddress, localPort));
    }
}
