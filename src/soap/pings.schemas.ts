import Type from 'typebox';

export const ListPingsQuerySchema = Type.Object({
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1 (at most 1,000,000)' }),
  per_page: Type.Integer({ minimum: 1, maximum: 100, default: 10, description: 'Pings per page (at most 100)' }),
});

export const PingSchema = Type.Object(
  {
    id: Type.Integer(),
    received_at: Type.String({ format: 'date-time', description: 'When the ping was accepted (UTC)' }),
    ping_input: Type.String(),
    username: Type.Union([Type.String(), Type.Null()], { description: 'The authenticated caller, null when anonymous' }),
    client_address: Type.String(),
  },
  { $id: 'SoapPing' },
);

export const PingListSchema = Type.Object(
  {
    pings: Type.Array(PingSchema),
    total: Type.Integer(),
    total_pages: Type.Integer(),
  },
  { $id: 'SoapPingList' },
);
