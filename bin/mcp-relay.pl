#!/usr/bin/env perl
# `switchboard mcp`: the stdio bridge an agent's MCP client starts. It pumps the client's lines (one JSON-RPC message
# each) to the running Core over one TCP connection, upgraded at the Core's /mcp to `switchboard-mcp-lines`, and
# writes the Core's answers back; all MCP work is the Core's. core.json in the profile names the Core (mcp_url, the
# agent token, its pid).
#
# Why Perl: the client keeps this process for as long as the agent lives, several agents keep one each, and an idle
# node is ~40 MB RSS, over the 35 MB this bridge may take. perl with the modules below is about 10 MB. Only modules
# of perl-base are used (no JSON::PP): perl-base is Essential on Debian and Ubuntu, and perl ships with macOS, so
# nothing is installed for it.
#
# The lines the Core sends (the first byte says which kind):
#   m JSON         JSON is a message for the client: written to stdout as it came.
#   a N [JSON]     the Core has read line N (counted from 1 on this connection). JSON, when given, is the no_core
#                  answer the Core made for that line: written if the connection is lost before `d N`.
#   d N            line N is answered; its kept JSON is forgotten.
# A line the Core never acknowledged is answered here, and nothing is ever sent twice: it may have run. When stdin
# ends the relay sends an empty line and half-closes; the Core answers what runs, then closes.
use strict;
use warnings;
use IO::Select;
use IO::Socket::IP;
use Socket qw(IPPROTO_TCP SOCK_STREAM TCP_NODELAY);

# The largest request, in bytes without its line end (MAX_REQUEST_BYTES in src/shared/limits.ts).
use constant MAX_REQUEST_BYTES => 10 * 1024 * 1024;
# Lines up to this size are read whole to find their id; a longer one only by its first and last KEPT_BYTES.
use constant SCAN_BYTES => 1024 * 1024;
# What is kept of a line too long to hold (and of a long line sent but not yet acknowledged): where clients write
# the id.
use constant KEPT_BYTES => 256;
use constant CHUNK_BYTES => 64 * 1024;
# A Core that takes the connection but does not answer the upgrade is not one the client can wait for.
use constant HANDSHAKE_SECONDS => 10;
use constant MAX_HEAD_BYTES => 64 * 1024;
# Enough of a refusal's body for its first line.
use constant MAX_REFUSAL_BYTES => 4096;

my $START_ONE = 'start one with `switchboard serve` or `npm start`';
my $RESTART = 'restart the Core (`switchboard serve`)';
my $TOO_LARGE =
    'Payload Too Large: the message is over the 10.0 MiB a request may be; write a large file in parts of at most '
    . '8.0 MiB, and put a long command in a file';

# The connection to the Core (undef while there is none) and what is known of its lines.
my $sock;
my $endpoint;        # the core.json the connection was made from
my $core_in = '';    # bytes from the Core, not yet a whole line
my $core_seen = 0;   # how far $core_in was searched for a line end
my $sent = 0;        # lines sent on this connection
my %unacked;         # line number -> what is kept of the line to answer it (see kept_of)
my %kept;            # line number -> the Core's answer for it, should the connection be lost
my $half_closed = 0;

# The client's side.
my $stdin_open = 1;
my $client_in = '';  # bytes from stdin, not yet a whole line
my $client_seen = 0;
my $cut;             # a line over the limit being read and dropped: [its head, its tail so far]

main();

sub main {
    # A client that closed its end of stdout is gone: the write fails (EPIPE) and the relay exits quietly.
    $SIG{PIPE} = 'IGNORE';
    binmode STDIN;
    binmode STDOUT;
    my ($first, $problem) = read_endpoint();
    if ($problem) {
        print STDERR "switchboard: $problem\n";
        exit 1;
    }
    # Connected before the client writes anything, so its first call pays nothing; a failure here is answered when
    # a line comes (the Core may be up by then).
    open_connection($first);
    pump();
}

# One loop over stdin and the socket until both are done.
sub pump {
    while (1) {
        my @handles = (($sock ? ($sock) : ()), ($stdin_open ? (\*STDIN) : ()));
        exit 0 unless @handles;
        my @ready = IO::Select->new(@handles)->can_read;
        # The Core first: a connection it closed is found lost before a client's line would be sent on it.
        on_core_readable() if $sock && grep { $_ == $sock } @ready;
        on_client_readable() if $stdin_open && grep { $_ == \*STDIN } @ready;
    }
}

# --- core.json ---

sub core_file_path {
    my $home = $ENV{SWITCHBOARD_HOME} || (($ENV{HOME} || (getpwuid $<)[7] || '') . '/.switchboard');
    $home =~ s{(?<=.)/+\z}{};
    return "$home/core.json";
}

# The Core core.json names, or why there is none ("message — hint", the words of src/main/transport/coreFile.ts).
sub read_endpoint {
    my $path = core_file_path();
    my $fh;
    return (undef, "no Switchboard Core is running (no $path) — $START_ONE") unless open $fh, '<:raw', $path;
    my $text = do { local $/; <$fh> } // '';
    close $fh;
    my $found = parse_core_file($text);
    return (undef, "$path is not a valid core file — $RESTART") unless $found;
    return (undef, "no Switchboard Core is running (the one in $path, pid $found->{pid}, has exited) — $START_ONE")
        unless pid_alive($found->{pid});
    return ($found);
}

# core.json is JSON.stringify's object of strings and numbers; the three fields are read by pattern. A value with an
# escape in it is no URL or token the Core writes, so it makes the file invalid rather than needing a decoder.
sub parse_core_file {
    my ($text) = @_;
    return undef unless $text =~ /\A\s*\{.*\}\s*\z/s;
    my ($url) = $text =~ /"mcp_url"\s*:\s*"([^"\\]*)"/;
    my ($token) = $text =~ /"token"\s*:\s*"([^"\\]*)"/;
    my ($pid) = $text =~ /"pid"\s*:\s*(\d+)\s*[,}]/;
    # The token goes into a header line: nothing in it may end the line or the header.
    return undef unless defined $url && defined $token && $token =~ /\A[\x21-\x7e]+\z/ && $pid;
    my ($authority, $path) = $url =~ m{\Ahttp://([^/?#\s]+)(/[^?#\s]*)?\z} or return undef;
    my ($host, $port) = $authority =~ /\A(\[[0-9A-Fa-f:.]+\]|[^:\[\]]+)(?::(\d+))?\z/ or return undef;
    $host =~ s/\A\[(.*)\]\z/$1/;
    return {
        url => $url,
        authority => $authority,
        host => $host,
        port => $port // 80,
        path => $path // '/',
        token => $token,
        pid => $pid,
    };
}

# kill 0: ESRCH says the process is gone; EPERM says it exists under another user.
sub pid_alive {
    my ($pid) = @_;
    return kill(0, $pid) || $!{EPERM};
}

# --- the connection ---

# Read core.json again and connect to the Core it names: undef when connected, else the line that says why not.
sub reconnect {
    my ($found, $problem) = read_endpoint();
    return "no_core: $problem" if $problem;
    return open_connection($found);
}

# Connect to the Core at $to and upgrade the connection: undef when done, else the line that says why not.
sub open_connection {
    my ($to) = @_;
    my $socket = IO::Socket::IP->new(
        PeerHost => $to->{host},
        PeerPort => $to->{port},
        Type => SOCK_STREAM,
        Timeout => HANDSHAKE_SECONDS,
    );
    return unreachable($to, errno_name()) unless $socket;
    binmode $socket;
    # Each line goes out when written, not held back until the Core acknowledges the last segment.
    setsockopt($socket, IPPROTO_TCP, TCP_NODELAY, 1);
    my $request = upgrade_request($to);
    my $error = write_all($socket, \$request, 0, length $request);
    return unreachable($to, $error) if $error ne '';
    my ($status, $rest) = read_upgrade_answer($socket);
    if (!defined $status) {
        close $socket;
        return unreachable($to, $rest);
    }
    if ($status ne '101') {
        close $socket;
        return 'unauthorized: token not valid for this Core (HTTP 401) — the token in core.json may be stale; '
            . 'restart the Core'
            if $status eq '401';
        my $why = $rest eq '' ? "HTTP $status" : "HTTP $status: $rest";
        return "no_core: the Core refused the connection ($why) — update or restart the Core";
    }
    ($sock, $endpoint, $sent, $half_closed) = ($socket, $to, 0, 0);
    ($core_in, $core_seen) = ($rest, 0);
    %unacked = ();
    %kept = ();
    take_core_lines();
    return undef;
}

# Host must be mcp_url's own host:port: the Core refuses any other (a page's DNS rebinding would name its own).
sub upgrade_request {
    my ($to) = @_;
    return "GET $to->{path} HTTP/1.1\r\nHost: $to->{authority}\r\nAuthorization: Bearer $to->{token}\r\n"
        . "Connection: Upgrade\r\nUpgrade: switchboard-mcp-lines\r\n\r\n";
}

sub unreachable {
    my ($to, $reason) = @_;
    return "no_core: cannot reach the Core at $to->{url}: $reason — $START_ONE";
}

# The Core's answer to the upgrade: (status, what followed its head) — for a 101, lines that came already; for a
# refusal, the first line of its body. (undef, reason) when no answer came.
sub read_upgrade_answer {
    my ($socket) = @_;
    my $deadline = time + HANDSHAKE_SECONDS;
    my $answer = '';
    my $head_end;
    while (($head_end = index($answer, "\r\n\r\n")) < 0) {
        return (undef, 'EPROTO') if length $answer > MAX_HEAD_BYTES;
        my $error = read_some($socket, \$answer, $deadline);
        return (undef, $error) if $error ne '';
    }
    my $head = substr($answer, 0, $head_end);
    my $rest = substr($answer, $head_end + 4);
    my ($status) = $head =~ m{\AHTTP/1\.[01] (\d{3})} or return (undef, 'EPROTO');
    return ($status, $rest) if $status eq '101';
    # A refusal: its body is a short text, and the Core closes after it.
    my ($length) = $head =~ /\r\ncontent-length:\s*(\d+)/i;
    $length = MAX_REFUSAL_BYTES unless defined $length && $length < MAX_REFUSAL_BYTES;
    while (index($rest, "\n") < 0 && length $rest < $length) {
        last if read_some($socket, \$rest, $deadline) ne '';
    }
    my ($first) = $rest =~ /\A([^\r\n]*)/;
    return ($status, $first);
}

# One read into $$buffer, waiting until $deadline: '' when bytes came, else 'closed', 'ETIMEDOUT' or the errno name.
sub read_some {
    my ($socket, $buffer, $deadline) = @_;
    while (1) {
        my $left = $deadline - time;
        return 'ETIMEDOUT' if $left <= 0 || !IO::Select->new($socket)->can_read($left);
        my $n = sysread($socket, $$buffer, CHUNK_BYTES, length $$buffer);
        next if !defined $n && $!{EINTR};
        return defined $n ? ($n ? '' : 'closed') : errno_name();
    }
}

sub on_core_readable {
    my $n = sysread($sock, $core_in, CHUNK_BYTES, length $core_in);
    if (!defined $n) {
        return if $!{EINTR} || $!{EAGAIN};
        return connection_lost(errno_name());
    }
    return core_ended() if $n == 0;
    take_core_lines();
}

# Every whole line the Core sent; what is left is the start of the next.
sub take_core_lines {
    my $start = 0;
    while ((my $end = index($core_in, "\n", $core_seen)) >= 0) {
        core_line($start, $end);
        $start = $core_seen = $end + 1;
    }
    release_consumed(\$core_in, $start);
    $core_seen = length $core_in;
}

# The Core's line from $start to its line end at $end.
sub core_line {
    my ($start, $end) = @_;
    my $kind = substr($core_in, $start, 2);
    if ($kind eq 'm ') {
        # The message and its line end, written from where they are: an answer can be megabytes.
        to_client(\$core_in, $start + 2, $end - $start - 1);
    } elsif ($kind eq 'a ' || $kind eq 'd ') {
        my ($n, $json) = split / /, substr($core_in, $start + 2, $end - $start - 2), 2;
        return unless defined $n && $n =~ /\A\d+\z/;
        delete $unacked{$n};
        if ($kind eq 'd ') {
            delete $kept{$n};
        } elsif (defined $json && $json ne '') {
            $kept{$n} = $json;
        }
    }
    # Any other kind is a newer Core's, which this relay has no use for.
}

# The Core closed: after stdin ended with every line answered, that is the end; else the connection is lost.
sub core_ended {
    return connection_lost('closed') if !$half_closed || %unacked || %kept;
    exit 0;
}

# The lines the Core had and did not finish are answered (its kept answers, or no_core for lines it had not
# acknowledged) in line order, and never sent again: they may have run.
sub connection_lost {
    my ($reason) = @_;
    my %answers = %kept;
    my %lines = %unacked;
    my $url = $endpoint->{url};
    close $sock;
    ($sock, $core_in, $core_seen, $sent) = (undef, '', 0, 0);
    %unacked = ();
    %kept = ();
    for my $n (sort { $a <=> $b } keys(%answers), keys(%lines)) {
        if (exists $answers{$n}) {
            my $line = "$answers{$n}\n";
            to_client(\$line);
        } else {
            answer_failure($lines{$n},
                "no_core: the connection to the Core at $url was lost ($reason); the request may have run — the next "
                . 'request finds the Core again through core.json');
        }
    }
    exit 0 unless $stdin_open;
}

# A write to the Core failed: what it said before it went is read first (answers it gave), then the connection is
# lost.
sub send_failed {
    my ($error) = @_;
    on_core_readable() while $sock && IO::Select->new($sock)->can_read(0);
    connection_lost($error) if $sock;
}

# --- the client ---

sub on_client_readable {
    my $n = sysread(STDIN, $client_in, CHUNK_BYTES, length $client_in);
    if (!defined $n) {
        return if $!{EINTR} || $!{EAGAIN};
        return client_ended();
    }
    return client_ended() if $n == 0;
    take_client_lines();
}

# Every whole line of stdin; a line over the limit is never held whole, only its head and tail.
sub take_client_lines {
    my $start = 0;
    while ((my $end = index($client_in, "\n", $client_seen)) >= 0) {
        if ($cut) {
            $cut->[1] = client_tail($start, $end, $cut->[1]);
            too_long(@$cut);
            undef $cut;
        } else {
            client_line($start, $end - $start);
        }
        $start = $client_seen = $end + 1;
    }
    if ($cut) {
        $cut->[1] = client_tail($start, length $client_in, $cut->[1]);
        $client_in = '';
    } else {
        release_consumed(\$client_in, $start);
        # One byte over: the line may still end in `\r\n`, whose `\r` the limit does not count.
        if (length $client_in > MAX_REQUEST_BYTES + 1) {
            $cut = [substr($client_in, 0, KEPT_BYTES), client_tail(0, length $client_in)];
            $client_in = '';
        }
    }
    $client_seen = length $client_in;
}

# The client's line at $start, $length bytes without its `\n`.
sub client_line {
    my ($start, $length) = @_;
    my $cr = $length > 0 && substr($client_in, $start + $length - 1, 1) eq "\r" ? 1 : 0;
    # Empty lines are skipped, as the SDK's stdio skips them.
    return if $length - $cr == 0;
    if ($length - $cr > MAX_REQUEST_BYTES) {
        return too_long(substr($client_in, $start, KEPT_BYTES), client_tail($start, $start + $length));
    }
    if (!$sock) {
        my $failure = reconnect();
        return answer_failure(kept_of($start, $length), $failure) if defined $failure;
    }
    $unacked{++$sent} = kept_of($start, $length);
    # The line with its `\n`, written from where it is: a line can be megabytes.
    my $error = write_all($sock, \$client_in, $start, $length + 1);
    send_failed($error) if $error ne '';
}

# What is kept of a line to answer it without the Core: the line, or for a long one its head and tail.
sub kept_of {
    my ($start, $length) = @_;
    return substr($client_in, $start, $length) if $length <= SCAN_BYTES;
    return [substr($client_in, $start, KEPT_BYTES), client_tail($start, $start + $length)];
}

# stdin ended: what was sent is still answered (the Core closes when it is done); a partial last line is dropped, as
# the SDK's stdio drops it. The Core is told by an empty line (never one of the client's, which are skipped), then a
# half-close: a FIN alone is also what the kernel sends for a relay that was killed, and the Core aborts what such a
# connection asked.
sub client_ended {
    $stdin_open = 0;
    ($client_in, $cut) = ('', undef);
    exit 0 unless $sock;
    my $end = "\n";
    my $error = write_all($sock, \$end, 0, 1);
    return send_failed($error) if $error ne '';
    shutdown($sock, 1);
    $half_closed = 1;
}

# --- answers the relay makes ---

# A line over the limit, answered as the Core answers a request over it, with the id found at its head or tail.
sub too_long {
    my ($head, $tail) = @_;
    my $found = message_of([$head, $tail]);
    write_message($found->{id} // 'null', 0, $TOO_LARGE);
}

# A line the Core did not answer: a request gets $failure (a tool error for a tools/call, which the model reads, as
# the Core's own failures are); a notification, or the client's response to a request of the Core's, nothing. A
# line with neither id nor method is answered with id null, as the Core answers a line it cannot read.
sub answer_failure {
    my ($line, $failure) = @_;
    my $found = message_of($line);
    return if $found->{has_method} ? !defined $found->{id} : $found->{response};
    write_message($found->{id} // 'null', ($found->{method} // '') eq 'tools/call', $failure);
}

sub write_message {
    my ($id, $tool_error, $text) = @_;
    my $quoted = json_string($text);
    my $line = $tool_error
        ? qq({"jsonrpc":"2.0","id":$id,"result":{"content":[{"type":"text","text":$quoted}],"isError":true}}\n)
        : qq({"jsonrpc":"2.0","id":$id,"error":{"code":-32000,"message":$quoted}}\n);
    to_client(\$line);
}

sub json_string {
    my ($text) = @_;
    # A path or a Core's words that are not UTF-8 would make the whole answer unreadable to the client.
    $text =~ s/[\x80-\xff]/?/g unless utf8::decode(my $copy = $text);
    $text =~ s/([\\"])/\\$1/g;
    $text =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord $1)/ge;
    return qq("$text");
}

# --- finding a message's id without a JSON parser ---

# What answering a message needs of it: {id => its JSON text, verbatim; method; has_method; response}. $line is the
# line, or [head, tail] of one too long to read whole: its id is then at its head or right before its closing `}`.
sub message_of {
    my ($line) = @_;
    return top_level_keys(\$line) unless ref $line;
    my ($head, $tail) = @$line;
    my $found = top_level_keys(\$head);
    $tail =~ s/\r\z//;
    $found->{id} //= $1 if $tail =~ /,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*\z/;
    return $found;
}

# The keys of the outer object: strings are skipped whole and brackets counted, so a key inside params never
# counts. Stops at the first thing it cannot read (where a cut head ends, or what is not JSON).
sub top_level_keys {
    my ($text) = @_;
    my %found;
    my $depth = 0;
    pos($$text) = 0;
    while (pos($$text) < length $$text) {
        next if $$text =~ /\G[^"{}\[\]]+/gc;
        if ($$text =~ /\G[{\[]/gc) {
            $depth++;
            next;
        }
        if ($$text =~ /\G[}\]]/gc) {
            last if --$depth <= 0;
            next;
        }
        # A string: a key when it is followed by `:` in the outer object.
        my $from = pos($$text) + 1;
        my $end = string_end($text, $from);
        last if $end < 0;
        pos($$text) = $end + 1;
        next unless $depth == 1 && $$text =~ /\G\s*:\s*/gc;
        my $key = substr($$text, $from, $end - $from);
        if ($key eq 'id') {
            $found{id} = value_text($text);
        } elsif ($key eq 'method') {
            $found{has_method} = 1;
            my $value = value_text($text);
            $found{method} = substr($value, 1, -1) if defined $value && $value =~ /\A"/;
        } elsif ($key eq 'result' || $key eq 'error') {
            $found{response} = 1;
        }
    }
    return \%found;
}

# The index of the `"` that ends the string whose text starts at $from; -1 when the text ends first. By index, not
# by a regular expression: perl's engine gives up on a string of more than 65534 escapes.
sub string_end {
    my ($text, $from) = @_;
    while ((my $quote = index($$text, '"', $from)) >= 0) {
        my $slashes = 0;
        $slashes++ while $quote - $slashes > $from && substr($$text, $quote - $slashes - 1, 1) eq '\\';
        return $quote if $slashes % 2 == 0;
        $from = $quote + 1;
    }
    return -1;
}

# The JSON text of the string, number or null at pos, taken when it is whole (a `,` or `}` follows it); else undef.
sub value_text {
    my ($text) = @_;
    my $at = pos($$text);
    if (substr($$text, $at, 1) eq '"') {
        my $end = string_end($text, $at + 1);
        return undef if $end < 0;
        pos($$text) = $end + 1;
    } else {
        return undef unless $$text =~ /\G(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|null)/gc;
    }
    my $value = substr($$text, $at, pos($$text) - $at);
    return $$text =~ /\G(?=\s*[,}])/ ? $value : undef;
}

# --- bytes ---

# Write $length bytes of $$bytes from $offset, all of them: '' when done, else the errno name. A non-blocking pipe
# (a client may hand one over) is waited on until it takes more.
sub write_all {
    my ($fh, $bytes, $offset, $length) = @_;
    while ($length > 0) {
        my $n = syswrite($fh, $$bytes, $length, $offset);
        if (!defined $n) {
            next if $!{EINTR};
            return errno_name() unless $!{EAGAIN} || $!{EWOULDBLOCK};
            wait_writable($fh);
            next;
        }
        ($offset, $length) = ($offset + $n, $length - $n);
    }
    return '';
}

sub wait_writable {
    my ($fh) = @_;
    my $bits = '';
    vec($bits, fileno($fh), 1) = 1;
    select(undef, $bits, undef, undef);
}

# To stdout; a client that is gone (EPIPE, or any failed write) leaves no one to answer.
sub to_client {
    my ($bytes, $offset, $length) = @_;
    exit 0 if write_all(\*STDOUT, $bytes, $offset // 0, $length // length $$bytes) ne '';
}

# Drop the first $count bytes of $$buffer; an emptied buffer gives its memory back (an answer can be megabytes).
sub release_consumed {
    my ($buffer, $count) = @_;
    if ($count < length $$buffer) {
        substr($$buffer, 0, $count, '') if $count;
        return;
    }
    undef $$buffer;
    $$buffer = '';
}

# The last KEPT_BYTES of $before followed by $client_in's bytes from $start to $end, copying no more than that: a
# copy of a long line would leave its memory with the allocator.
sub client_tail {
    my ($start, $end, $before) = @_;
    my $from = $end - KEPT_BYTES > $start ? $end - KEPT_BYTES : $start;
    my $tail = ($before // '') . substr($client_in, $from, $end - $from);
    return length $tail > KEPT_BYTES ? substr($tail, -KEPT_BYTES) : $tail;
}

# The name of $! (ECONNREFUSED …), as Node's errors name it.
sub errno_name {
    my ($name) = sort grep { $!{$_} } keys %!;
    return $name // 'EIO';
}
