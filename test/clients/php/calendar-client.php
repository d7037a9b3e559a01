<?php
// A PHP client of the calendar as WordPress plugins and themes write one:
// php-curl, form bodies from http_build_query and bracket filters in the
// query string. Prints what it saw as JSON for the test to judge.
// Usage: php calendar-client.php BASE_URL USERNAME PASSWORD

[$script, $base, $username, $password] = $argv;
$api = rtrim($base, '/') . '/calendar/events/v1';

function call(string $method, string $url, ?array $form = null, array $headers = []): array {
    global $username, $password;
    $curl = curl_init($url);
    curl_setopt_array($curl, [
        CURLOPT_CUSTOMREQUEST => $method,
        CURLOPT_RETURNTRANSFER => true,
        CURLOPT_USERPWD => "$username:$password",
        CURLOPT_HTTPHEADER => $headers,
    ]);
    if ($form !== null) {
        // A string body: curl sends it as application/x-www-form-urlencoded.
        curl_setopt($curl, CURLOPT_POSTFIELDS, http_build_query($form));
    }
    $body = curl_exec($curl);
    if ($body === false) {
        fwrite(STDERR, curl_error($curl) . "\n");
        exit(2);
    }
    $status = curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
    curl_close($curl);
    return ['status' => $status, 'body' => json_decode($body, true)];
}

function ids(array $response): array {
    return array_map(fn ($event) => $event['id'], $response['body']['events'] ?? []);
}

$window = ['start_date' => '2032-01-01', 'end_date' => '2032-12-31'];
$first = call('POST', "$api/organizers", ['organizer' => 'PHP Promoter A'])['body']['id'];
$second = call('POST', "$api/organizers", ['organizer' => 'PHP Promoter B'])['body']['id'];

$created = call('POST', "$api/events", [
    'title' => 'PHP concert',
    'start_date' => '2032-03-01 20:00',
    'end_date' => '2032-03-01 23:00',
    'organizer' => [$second, $first],
    'venue' => ['venue' => 'PHP Hall', 'city' => 'Rome', 'address' => 'Via PHP 1'],
    'categories' => ['music', 'jazz'],
    'cost' => ['0', '20'],
]);
$event = $created['body'];
$other = call('POST', "$api/events", ['title' => 'PHP lecture', 'start_date' => '2032-03-02 10:00', 'end_date' => '2032-03-02 11:00'])['body'];

$result = [
    'organizers' => [$second, $first],
    'other' => $other['id'],
    'created' => [
        'status' => $created['status'],
        'id' => $event['id'],
        'organizers' => array_map(fn ($organizer) => $organizer['id'], $event['organizer']),
        'venue' => [$event['venue']['venue'] ?? null, $event['venue']['city'] ?? null],
        'categories' => array_map(fn ($category) => $category['slug'], $event['categories']),
        'cost' => $event['cost_details']['values'],
    ],
    'filtered' => [
        'organizer' => ids(call('GET', "$api/events?" . http_build_query($window + ['organizer' => [$second]]))),
        'venue' => ids(call('GET', "$api/events?" . http_build_query($window + ['venue' => [$event['venue']['id']]]))),
        'categories' => ids(call('GET', "$api/events?" . http_build_query($window + ['categories' => ['jazz']]))),
        'none' => ids(call('GET', "$api/events?" . http_build_query($window))),
    ],
    'bad_include' => call('GET', "$api/events?" . http_build_query(['include' => ['foo-bar']])),
    'updated' => call('POST', "$api/events/{$event['id']}", ['title' => 'PHP concert, late', 'cost' => ['5', '25']])['body'],
    'method_override' => call('POST', "$api/events/{$other['id']}?" . http_build_query(['_method' => 'DELETE', 'force' => 'true']))['status'],
    'after_delete' => call('GET', "$api/events/{$other['id']}")['status'],
];
$result['updated'] = ['title' => $result['updated']['title'], 'cost' => $result['updated']['cost_details']['values']];
echo json_encode($result), "\n";
