import { NS } from './namespaces.ts';
import { SOAP_ACTION } from './ping-request.ts';
import { escapeXml } from '../platform/xml/xml.ts';

/** The PingService WSDL 1.1 (docs/soap.md), with `soap:address` at `endpointUrl`. */
export function buildWsdl(endpointUrl: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions name="PingService" targetNamespace="${NS.ping}"
    xmlns:tns="${NS.ping}"
    xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"
    xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
    xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <wsdl:types>
    <xsd:schema targetNamespace="${NS.ping}">
      <xsd:element name="pingStringInput">
        <xsd:complexType>
          <xsd:sequence>
            <xsd:element name="pingInput" type="xsd:string"/>
          </xsd:sequence>
        </xsd:complexType>
      </xsd:element>
    </xsd:schema>
  </wsdl:types>
  <wsdl:message name="pingOperationRequest">
    <wsdl:part name="parameter" element="tns:pingStringInput"/>
  </wsdl:message>
  <wsdl:portType name="PingServicePortType">
    <wsdl:operation name="pingOperation">
      <wsdl:input message="tns:pingOperationRequest"/>
    </wsdl:operation>
  </wsdl:portType>
  <wsdl:binding name="PingSOAP" type="tns:PingServicePortType">
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="pingOperation">
      <soap:operation soapAction="${SOAP_ACTION}"/>
      <wsdl:input>
        <soap:body use="literal"/>
      </wsdl:input>
    </wsdl:operation>
  </wsdl:binding>
  <wsdl:service name="PingService">
    <wsdl:port name="PingServicePort" binding="tns:PingSOAP">
      <soap:address location="${escapeXml(endpointUrl)}"/>
    </wsdl:port>
  </wsdl:service>
</wsdl:definitions>
`;
}
